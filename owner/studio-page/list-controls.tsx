import { type ReactNode, useEffect, useId, useState } from 'react'
import type { SortColumn } from '../../server/admin/entries'
import type { Summary } from './api'
import { FilterBoxes } from './filter-boxes'
import { type Filters, filterCount } from './filters'
import { FOCUS } from './styles'
import { ALWAYS_SHOWN, TABLE_COLUMNS } from './table-columns'

/**
 * The list's controls beside its filters: the filters folded behind one button on a phone, the
 * team's tags and the domains to filter by, and the columns shown.
 */

/** On a phone, the filters behind one button that says how many are on; from a tablet up, always shown. */
export function FilterFold({ filters, children }: { filters: Filters; children: ReactNode }) {
  const [open, setOpen] = useState(false)
  const id = useId()
  const on = filterCount(filters)
  return (
    <>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className={`mt-3 rounded border border-line px-3 py-2 text-sm font-medium sm:hidden ${FOCUS}`}
      >
        Filters{on > 0 ? ` (${on} on)` : ''}
      </button>
      <div id={id} className={open ? '' : 'max-sm:hidden'}>
        {children}
      </div>
    </>
  )
}

const VERIFIED_AGENT = 'Made through a verified agent'
/** Domains have no spaces; an agent's name may (`ChatGPT agent`), so names are split at commas only. */
const DOMAIN_SPLIT = /[\s,]+/
const AGENT_SPLIT = /\s*,\s*/

/** A box per tag the team has given (all ticked must match, as `--tag` does), and the domains to keep. */
export function MarkFilters(props: {
  filters: Filters
  summary: Summary | undefined
  onChange(filters: Filters): void
}) {
  const { filters, summary, onChange } = props
  const counts = new Map(summary?.tags.map(({ tag, entries }) => [tag, entries]))
  // A tag in the address that no entry carries (any more) stays shown, so it can be unticked.
  const offered = [...new Set([...counts.keys(), ...filters.tags])]
  return (
    <>
      <FilterBoxes
        legend="Tags (all ticked must match)"
        options={offered}
        selected={filters.tags}
        onChange={(tags) => onChange({ ...filters, tags })}
        after={(tag) => (
          <>
            {' '}
            <span className="tabular-nums text-soft">({(counts.get(tag) ?? 0).toLocaleString('en-US')})</span>
          </>
        )}
        note={
          summary?.moreTags ? `Only the first ${summary.tags.length} tags, in alphabetical order.` : undefined
        }
        empty={summary ? 'No entry has a tag yet: tick rows, then Tag selected.' : 'Loading…'}
      />
      <WordsBox
        label="Domain, with its subdomains"
        rule="stanford.edu also finds cs.stanford.edu; edu finds every .edu address. Several: spaces between."
        split={DOMAIN_SPLIT}
        joiner=" "
        value={filters.domains}
        onChange={(domains) => onChange({ ...filters, domains })}
      />
      <WordsBox
        label="Agent, by name"
        rule="A name the program declared, or a verified agent's display name or origin; any letter case. Several: commas between."
        split={AGENT_SPLIT}
        joiner=", "
        value={filters.agents}
        onChange={(agents) => onChange({ ...filters, agents })}
      />
      <FilterBoxes
        legend="Agent"
        options={[VERIFIED_AGENT]}
        selected={filters.agentVerified ? [VERIFIED_AGENT] : []}
        onChange={(ticked) => onChange({ ...filters, agentVerified: ticked.length > 0 })}
        note="An agent whose Web Bot Auth signature held, from an agent SIGNATURE_AGENTS lists."
      />
    </>
  )
}

/**
 * Words to filter by, split by `split`: domains (each with its subdomains, `edu` is every .edu) or
 * agents' names (as `--agent` takes them). The list follows a moment after typing stops.
 */
function WordsBox(props: {
  label: string
  rule: string
  split: RegExp
  /** How the words in the address are written back into the box. */
  joiner: string
  value: readonly string[]
  onChange(words: string[]): void
}) {
  const id = useId()
  const { split, value, onChange } = props
  const [text, setText] = useState(value.join(props.joiner))
  useEffect(() => {
    const next = text
      .split(split)
      .map((word) => word.trim())
      .filter(Boolean)
    if (next.join('\n') === value.join('\n')) return
    const timer = setTimeout(() => onChange(next), 300)
    return () => clearTimeout(timer)
  }, [text, split, value, onChange])
  return (
    <div className="mt-3">
      <label htmlFor={id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input
        id={id}
        type="search"
        value={text}
        aria-describedby={`${id}-rule`}
        onChange={(event) => setText(event.target.value)}
        className={`mt-1 w-full rounded border border-line bg-page px-3 py-2 sm:w-80 ${FOCUS}`}
      />
      <p id={`${id}-rule`} className="mt-1 text-sm text-soft">
        {props.rule}
      </p>
    </div>
  )
}

/** The columns shown, a box each, kept for the next visit (table-columns.ts). */
export function ColumnPicker(props: {
  hidden: readonly SortColumn[]
  onChange(id: SortColumn, hidden: boolean): void
}) {
  return (
    <details className="mt-3 text-sm">
      <summary className={`cursor-pointer font-medium ${FOCUS}`}>Columns shown</summary>
      <fieldset className="mt-1 flex flex-wrap gap-2">
        <legend className="sr-only">Columns shown</legend>
        {TABLE_COLUMNS.filter((column) => column.id !== ALWAYS_SHOWN).map((column) => (
          <label key={column.id} className="flex items-center gap-2 rounded border border-line px-2 py-1">
            <input
              type="checkbox"
              checked={!props.hidden.includes(column.id)}
              onChange={(event) => props.onChange(column.id, !event.target.checked)}
              className={FOCUS}
            />
            {column.label}
          </label>
        ))}
      </fieldset>
    </details>
  )
}
