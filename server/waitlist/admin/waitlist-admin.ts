import type { EntryStatus } from '../../../contract/entry-statuses'
import { DAY_MS, utcDay, windowStart } from '../../analytics/utc-day'
import type { Actor } from '../../audit/audit-record'
import type { Database, Queryable } from '../../db/database'
import { eraseEntry } from '../erasure'
import { countAll, countPerDay } from './day-counts'
import { ENTRY_SOURCE } from './entry-columns'
import { bindParameters, type EntryFilter, filterConditions, isEmptyFilter, whereOf } from './entry-filter'
import { countByStatus } from './status-counts'

/**
 * The owner's reads and writes on the waitlist, shared by the CLI and the studio. Every function
 * takes the database as an argument and runs as the owner, outside RLS.
 */

/** An entry as ENTRY_COLUMNS (entry-columns.ts) reads it: what `list`, `export` and the studio show. */
export interface Entry {
  email: string
  /** UTC, microseconds, e.g. 2026-11-01T09:00:00.123456Z: what `export` writes. */
  created_at: string
  /** Its invitation status (waiting when it has none of its own, ADR 034) and when it changed, '' for never. */
  status: EntryStatus
  confirmed_at: string
  invited_at: string
  unsubscribed_at: string
  bounced_at: string
  joined_at: string
  /** The signup's source (the sources report's name), '' for none. */
  source: string
  /** Its answer to each of the lab's questions (`answer_role`…), '' for none. */
  [answer: `answer_${string}`]: string
  /** The team's tags, space-separated, and its note: '' for none (entry-marks.ts). */
  tags: string
  note: string
  /** The person's name, '' for none. */
  name: string
  /** The consent record's agent as JSON text (server/agents/agent-record.ts), '' for none. */
  consent_agent: string
}

/**
 * How many entries the filter matches: the whole list's number from the per-day counts the
 * triggers keep (day-counts.ts), a few hundred rows however long the list; by status alone, from
 * the status counts (status-counts.ts); otherwise the matching rows are counted.
 */
export async function countEntries(db: Queryable, filter: EntryFilter = {}): Promise<number> {
  if (isEmptyFilter(filter)) return countAll(db)
  const { statuses, ...others } = filter
  if (statuses !== undefined && isEmptyFilter(others)) {
    const counts = await countByStatus(db)
    return [...new Set(statuses)].reduce((sum, status) => sum + counts[status], 0)
  }
  const params: unknown[] = []
  const where = whereOf(filterConditions(filter, bindParameters(params)))
  const [row] = await db.query<{ entries: string }>(
    `select count(*)::text as entries from ${ENTRY_SOURCE} ${where}`,
    params,
  )
  return Number(row?.entries ?? 0)
}

export interface DayCount {
  /** YYYY-MM-DD, UTC. */
  day: string
  count: number
}

/**
 * Signups per UTC day, every day present (zeros included), from `days - 1` days before today to
 * today, or from the first signup when `days` is 'all'. A day after today (an imported future
 * date) extends the range rather than vanishing.
 */
export async function signupsPerDay(
  db: Queryable,
  days: number | 'all',
  now = new Date(),
): Promise<DayCount[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const from = windowStart(days, now)
  const rows = await countPerDay(db, from)
  const counts = new Map(rows.map((row) => [row.day, row.count]))
  const first = Date.parse(from ?? rows[0]?.day ?? utcDay(now.getTime()))
  const lastDay = rows.at(-1)?.day
  const last = Math.max(today, lastDay ? Date.parse(lastDay) : today)
  const result: DayCount[] = []
  for (let time = first; time <= last; time += DAY_MS) {
    const day = utcDay(time)
    result.push({ day, count: counts.get(day) ?? 0 })
  }
  return result
}

/**
 * The owner's erasure (`remove`, the studio's): erasure.ts, kept out of imports as `removed`. True
 * when a row went.
 */
export async function removeEntry(db: Database, email: string, actor: Actor): Promise<boolean> {
  return (await eraseEntry(db, email, 'removed', actor)) !== undefined
}
