import { useCallback, useState } from 'react'
import { ENTRY_STATUSES, type EntryStatus } from '../../contract/entry-statuses'
import type { SortColumn } from '../../server/admin/entries'

/**
 * Which entries the list shows, as the CLI's flags name them (server/waitlist/admin/entry-filter.ts):
 * statuses and sources (any of those ticked), answers as `ID=VALUE` (a choice exactly, a text
 * contained), domains (each with its subdomains, any of them), tags (all of them), agents by name
 * (any of them) and only those a verified agent made. Kept in the
 * page's address with the list's order (`?status=waiting&answer=role%3DResearch&sort=answer_organisation&order=asc`),
 * so a reload or a bookmark keeps them; the token never is (it lives in the tab, api.ts).
 */
export interface Filters {
  statuses: EntryStatus[]
  sources: string[]
  answers: string[]
  domains: string[]
  tags: string[]
  /** Agents by name, any of them (`--agent NAME`): a declared name, or a verified agent's display name or origin. */
  agents: string[]
  /** Only entries a verified agent made (`--agent-verified`). */
  agentVerified: boolean
}

/** The list's order: a column, either way. Newest first (signed up, descending) unless asked. */
export interface Sort {
  column: SortColumn
  descending: boolean
}

export const NEWEST_FIRST: Sort = { column: 'created_at', descending: true }

export const NO_FILTERS: Filters = {
  statuses: [],
  sources: [],
  answers: [],
  domains: [],
  tags: [],
  agents: [],
  agentVerified: false,
}

const isStatus = (value: string): value is EntryStatus =>
  (ENTRY_STATUSES as readonly string[]).includes(value)

export function filtersFromQuery(search: string): Filters {
  const query = new URLSearchParams(search)
  return {
    statuses: query.getAll('status').filter(isStatus),
    sources: query.getAll('source'),
    answers: query.getAll('answer'),
    domains: query.getAll('domain'),
    tags: query.getAll('tag'),
    agents: query.getAll('agent'),
    agentVerified: query.get('agent-verified') === 'true',
  }
}

function sortFromQuery(search: string): Sort {
  const query = new URLSearchParams(search)
  const column = query.get('sort')
  if (!column) return NEWEST_FIRST
  return { column: column as SortColumn, descending: query.get('order') === 'desc' }
}

/** The filters as the studio's API and the page's address both take them. */
export function filtersQuery(filters: Filters): URLSearchParams {
  const query = new URLSearchParams()
  for (const status of filters.statuses) query.append('status', status)
  for (const source of filters.sources) query.append('source', source)
  for (const answer of filters.answers) query.append('answer', answer)
  for (const domain of filters.domains) query.append('domain', domain)
  for (const tag of filters.tags) query.append('tag', tag)
  for (const agent of filters.agents) query.append('agent', agent)
  if (filters.agentVerified) query.append('agent-verified', 'true')
  return query
}

/** The order as the API and the address take it; nothing for newest first. */
export function sortQuery(sort: Sort): Record<string, string> {
  if (sort.column === NEWEST_FIRST.column && sort.descending) return {}
  return { sort: sort.column, order: sort.descending ? 'desc' : 'asc' }
}

/** How many filters narrow the list (the folded filters' button says so). */
export const filterCount = (filters: Filters) =>
  filters.statuses.length +
  filters.sources.length +
  filters.answers.length +
  filters.domains.length +
  filters.tags.length +
  filters.agents.length +
  (filters.agentVerified ? 1 : 0)

export const isFiltered = (filters: Filters) => filterCount(filters) > 0

/** The answers given for one question, as the values after `ID=`. */
export const answersTo = (filters: Filters, id: string) =>
  filters.answers.filter((answer) => answer.startsWith(`${id}=`)).map((answer) => answer.slice(id.length + 1))

/** The filters with this question's answers replaced by `values`. */
export function withAnswers(filters: Filters, id: string, values: readonly string[]): Filters {
  const others = filters.answers.filter((answer) => !answer.startsWith(`${id}=`))
  return { ...filters, answers: [...others, ...values.map((value) => `${id}=${value}`)] }
}

/** What the list shows: the filters and the order, read from the page's address once and written back on every change. */
export interface ListView {
  filters: Filters
  sort: Sort
}

export function useUrlView(): [ListView, (next: ListView) => void] {
  const [view, setView] = useState<ListView>(() => ({
    filters: filtersFromQuery(window.location.search),
    sort: sortFromQuery(window.location.search),
  }))
  const change = useCallback((next: ListView) => {
    setView(next)
    const query = filtersQuery(next.filters)
    for (const [name, value] of Object.entries(sortQuery(next.sort))) query.append(name, value)
    const text = query.toString()
    // Replaced, not pushed: Back leaves the studio rather than stepping through every tick.
    history.replaceState(null, '', `${window.location.pathname}${text ? `?${text}` : ''}`)
  }, [])
  return [view, change]
}
