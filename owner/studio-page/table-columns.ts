import { useCallback, useState } from 'react'
import { agentCell } from '../../contract/agent-words'
import { signupQuestions } from '../../contract/site-config'
import type { PageEntry, SortColumn } from '../../server/admin/entries'

/**
 * The columns of the studio's table of people, each also an order of the list (entry-sort.ts):
 * the address, the person's name, when they signed up, the status, the source, the agent, one per question the lab asks, the
 * team's tags, the batch that last invited them, and when they joined.
 */
export interface TableColumn {
  id: SortColumn
  /** Its name, as the column picker and the list's heading say it. */
  label: string
  /** Its heading, short enough for a table of many columns; the label is its title. */
  heading: string
  /** What a cell shows. */
  text(entry: PageEntry): string
  /** A text that may run long: cut in the cell, whole on hover and in the entry's panel. */
  long?: boolean
  /** What hovering the cell tells beside it: a date's time. */
  title?(entry: PageEntry): string
  /** What the heading says the order is, A to Z or oldest first, when ascending and when descending. */
  orders: [string, string]
}

/** `2026-11-01` from UTC with microseconds, and `2026-11-01 09:00 UTC` for its title; '' for none. */
const day = (at: string) => at.slice(0, 10)
const minute = (at: string) => (at === '' ? '' : `${at.slice(0, 16).replace('T', ' ')} UTC`)

const ALPHABET: [string, string] = ['A to Z', 'Z to A']

/** A question's heading: its label when short ("Your role"), else its id in words ("Use case"). */
function headingOf(label: string, id: string): string {
  if (label.length <= 16) return label
  const words = id.replaceAll('_', ' ')
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`
}

/** A column whose heading is its label. */
const plain = (column: Omit<TableColumn, 'heading'>): TableColumn => ({ ...column, heading: column.label })

export const TABLE_COLUMNS: readonly TableColumn[] = [
  plain({ id: 'email', label: 'Address', text: (entry) => entry.email, orders: ALPHABET }),
  plain({ id: 'name', label: 'Name', text: (entry) => entry.name, orders: ALPHABET }),
  plain({
    id: 'created_at',
    label: 'Signed up',
    text: (entry) => day(entry.created_at),
    title: (entry) => minute(entry.created_at),
    orders: ['oldest first', 'newest first'],
  }),
  plain({
    id: 'status',
    label: 'Status',
    text: (entry) => entry.status,
    orders: ['waiting to complained', 'complained to waiting'],
  }),
  plain({ id: 'source', label: 'Source', text: (entry) => entry.source, long: true, orders: ALPHABET }),
  plain({
    id: 'agent',
    label: 'Agent',
    text: (entry) => agentCell(entry.consent_agent),
    long: true,
    orders: ALPHABET,
  }),
  ...signupQuestions.map(
    (question): TableColumn => ({
      id: `answer_${question.id}`,
      label: question.label,
      heading: headingOf(question.label, question.id),
      text: (entry) => entry[`answer_${question.id}`] ?? '',
      long: question.kind === 'text',
      orders: ALPHABET,
    }),
  ),
  plain({ id: 'tags', label: 'Tags', text: (entry) => entry.tags, orders: ALPHABET }),
  plain({
    id: 'batch',
    label: 'Batch',
    text: (entry) => entry.batch,
    orders: ['first batch first', 'last batch first'],
  }),
  plain({
    id: 'joined_at',
    label: 'Joined',
    text: (entry) => day(entry.joined_at),
    title: (entry) => minute(entry.joined_at),
    orders: ['first joined first', 'last joined first'],
  }),
]

/** The address is always shown: it names the row and opens the entry's panel. */
export const ALWAYS_SHOWN: SortColumn = 'email'

// Kept in localStorage, unlike the token (sessionStorage, api.ts): a choice of how the owner likes
// to see the list, which holds nothing about anyone and should outlast the tab. It is per origin,
// so a studio on another --port starts with every column shown.
const HIDDEN_KEY = 'waitlist-studio-hidden-columns'

function storedHidden(): SortColumn[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(HIDDEN_KEY) ?? '[]')
    const known = new Set<string>(TABLE_COLUMNS.map((column) => column.id))
    return Array.isArray(stored)
      ? stored.filter((id): id is SortColumn => known.has(id) && id !== ALWAYS_SHOWN)
      : []
  } catch {
    return [] // storage turned off, or not ours to read: every column shown
  }
}

/** The columns the owner hid, kept between visits; and how to hide or show one. */
export function useHiddenColumns(): [readonly SortColumn[], (id: SortColumn, hidden: boolean) => void] {
  const [hidden, setHidden] = useState(storedHidden)
  const change = useCallback((id: SortColumn, hide: boolean) => {
    setHidden((current) => {
      const next = hide ? [...new Set([...current, id])] : current.filter((each) => each !== id)
      try {
        localStorage.setItem(HIDDEN_KEY, JSON.stringify(next))
      } catch {
        // kept for this page only
      }
      return next
    })
  }, [])
  return [hidden, change]
}
