import { useCallback, useState } from 'react'
import { ENTRY_STATUSES, type EntryStatus } from '../../contract/entry-statuses'

/**
 * Which entries the list shows, as the CLI's flags name them (server/waitlist/admin/entry-filter.ts):
 * statuses and sources (any of those ticked), and answers as `ID=VALUE` (a choice exactly, a text
 * contained). Kept in the page's address (`?status=waiting&answer=role%3DResearch`), so a reload or
 * a bookmark keeps them; the token never is (it lives in the tab, api.ts).
 */
export interface Filters {
  statuses: EntryStatus[]
  sources: string[]
  answers: string[]
}

export const NO_FILTERS: Filters = { statuses: [], sources: [], answers: [] }

const isStatus = (value: string): value is EntryStatus =>
  (ENTRY_STATUSES as readonly string[]).includes(value)

export function filtersFromQuery(search: string): Filters {
  const query = new URLSearchParams(search)
  return {
    statuses: query.getAll('status').filter(isStatus),
    sources: query.getAll('source'),
    answers: query.getAll('answer'),
  }
}

/** The filters as the studio's API and the page's address both take them. */
export function filtersQuery(filters: Filters): URLSearchParams {
  const query = new URLSearchParams()
  for (const status of filters.statuses) query.append('status', status)
  for (const source of filters.sources) query.append('source', source)
  for (const answer of filters.answers) query.append('answer', answer)
  return query
}

export const isFiltered = (filters: Filters) =>
  filters.statuses.length + filters.sources.length + filters.answers.length > 0

/** The answers given for one question, as the values after `ID=`. */
export const answersTo = (filters: Filters, id: string) =>
  filters.answers.filter((answer) => answer.startsWith(`${id}=`)).map((answer) => answer.slice(id.length + 1))

/** The filters with this question's answers replaced by `values`. */
export function withAnswers(filters: Filters, id: string, values: readonly string[]): Filters {
  const others = filters.answers.filter((answer) => !answer.startsWith(`${id}=`))
  return { ...filters, answers: [...others, ...values.map((value) => `${id}=${value}`)] }
}

/** The filters, read from the page's address once and written back to it on every change. */
export function useUrlFilters(): [Filters, (next: Filters) => void] {
  const [filters, setFilters] = useState(() => filtersFromQuery(window.location.search))
  const change = useCallback((next: Filters) => {
    setFilters(next)
    const query = filtersQuery(next).toString()
    // Replaced, not pushed: Back leaves the studio rather than stepping through every tick.
    history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}`)
  }, [])
  return [filters, change]
}
