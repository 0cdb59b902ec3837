import { escapeLiteral } from 'pg'
import { ENTRY_STATUSES, type EntryStatus, isEntryStatus } from '../entry-status'

/**
 * Which entries the owner means: one filter for `list`, `count`, `export` and the studio's list,
 * turned into SQL here alone. Every field given narrows the entries (all must match); a field with
 * several values takes any of them. A new filter (a source, an answer, a domain) is one field of
 * EntryFilter, one check in `readFilter` and one clause in `filterConditions`, and every command
 * and the studio have it.
 */
export interface EntryFilter {
  /** Entries with any of these statuses. */
  statuses?: readonly EntryStatus[]
  /** Entries that signed up at or after this time (anything PostgreSQL reads as a timestamp). */
  since?: string
}

/** A filter with nothing in it: every entry. */
export const isEmptyFilter = (filter: EntryFilter) =>
  Object.values(filter).every((value) => value === undefined)

/**
 * The filter the owner asked for (the CLI's flags, the studio's query), or what is wrong with it in
 * the words of the flags. `since` is checked where it is read, as a date.
 */
export function readFilter(given: {
  statuses?: readonly string[]
  since?: string
}): { filter: EntryFilter } | { problem: string } {
  const { statuses, since } = given
  const unknown = statuses?.find((status) => !isEntryStatus(status))
  if (unknown !== undefined)
    return {
      problem: `--status needs one of ${ENTRY_STATUSES.join(', ')}, not ${JSON.stringify(unknown.slice(0, 40))}`,
    }
  return { filter: { statuses: statuses && [...new Set(statuses.filter(isEntryStatus))], since } }
}

/**
 * How a value reaches the SQL: as a parameter of the query ($n), or, for COPY, which takes none, as
 * a quoted literal. Either way the value is data, never SQL text.
 */
export type Bind = (value: string | readonly string[], type: 'text[]' | 'timestamptz') => string

/** Each value a parameter, appended to `params`. */
export function bindParameters(params: unknown[]): Bind {
  return (value, type) => {
    params.push(value)
    return `$${params.length}::${type}`
  }
}

/** Each value a quoted literal (an array as PostgreSQL's array text, each element quoted). */
export const bindLiterals: Bind = (value, type) => {
  const text =
    typeof value === 'string'
      ? value
      : `{${value.map((item) => `"${item.replace(/["\\]/g, '\\$&')}"`).join(',')}}`
  return `${escapeLiteral(text)}::${type}`
}

/** The names the conditions use: ENTRY_SOURCE's (entry-columns.ts) unless told otherwise. */
export interface FilterTables {
  /** public.waitlist */
  list: string
  /** private.entry_status, left-joined: no row means waiting. */
  status: string
}

const ENTRY_SOURCE_TABLES: FilterTables = { list: 'waitlist', status: 'entry_status' }

/**
 * A status condition the planner can serve from the status index (entry_status_by_status) when
 * `waiting` is not asked for: a condition on the joined row's own status, which an entry without
 * one fails. `waiting` is mostly the entries without a row (ADR 034): those are most of a list,
 * found as the list is walked in its order.
 */
function statusCondition(statuses: readonly EntryStatus[], bind: Bind, on: FilterTables): string {
  if (!statuses.includes('waiting')) return `${on.status}.status = any(${bind(statuses, 'text[]')})`
  return `coalesce(${on.status}.status, 'waiting') = any(${bind(statuses, 'text[]')})`
}

/** The filter's conditions on the list beside its statuses; none for an empty filter. */
export function filterConditions(
  filter: EntryFilter,
  bind: Bind,
  on: FilterTables = ENTRY_SOURCE_TABLES,
): string[] {
  const conditions: string[] = []
  if (filter.statuses !== undefined) conditions.push(statusCondition(filter.statuses, bind, on))
  if (filter.since !== undefined)
    conditions.push(`${on.list}.created_at >= ${bind(filter.since, 'timestamptz')}`)
  return conditions
}

/** `where …` for these conditions, or nothing. */
export const whereOf = (conditions: readonly string[]) =>
  conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''
