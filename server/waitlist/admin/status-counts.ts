import { ENTRY_STATUSES, type EntryStatus } from '../../../contract/entry-statuses'
import type { Queryable } from '../../db/database'
import { TOTAL_SQL } from './day-counts'
import { foldKept, keptRows, STATUS_ENTRIES } from './kept-counts'

/** How many entries have each status. */
export type StatusCounts = Record<EntryStatus, number>

/**
 * The per-status counts that triggers keep (20261207520000_status_and_tag_counts.sql, ADR 115), as
 * the per-day ones are (day-counts.ts): each change to private.entry_status appends its change per
 * status to entry_status_deltas; a read adds up the counts and the deltas not yet folded, a row per
 * status and per write since the last fold, never the status table.
 */

/** Moves the statuses' deltas into their counts (kept-counts.ts). */
export const foldStatusCounts = (db: Queryable) => foldKept(db, STATUS_ENTRIES)

/**
 * Entries by status, from the counts kept beside the list: the statuses with a row of their own
 * from the status counts, and `waiting`, which mostly has none (ADR 034), as the list's total from
 * the per-day counts less all the others. One statement, however long the list; the counts and
 * the deltas are read in it together, so a fold beside it moves nothing it sees twice.
 */
export async function countByStatus(db: Queryable): Promise<StatusCounts> {
  await foldStatusCounts(db)
  return readCounts(db, KEPT)
}

/**
 * The same, from a database as it is (a dry run migrates nothing, nor folds): the kept counts once
 * their migration is in, else a count of the status table's own rows.
 */
export async function countByStatusAsIs(db: Queryable): Promise<StatusCounts> {
  const [row] = await db.query<{ kept: string | null }>(
    `select to_regclass('private.entry_status_counts')::text as kept`,
  )
  return readCounts(db, row?.kept ? KEPT : COUNTED)
}

const KEPT = `(select status, sum(entries)::int as n from ${keptRows(STATUS_ENTRIES, 'kept')}
                where status <> 'waiting' group by status having sum(entries) <> 0)`

const COUNTED = `(select status, count(*)::int as n from private.entry_status
                   where status <> 'waiting' group by status)`

async function readCounts(db: Queryable, own: string): Promise<StatusCounts> {
  const [row] = await db.query<{ total: string; counts: Record<string, number> | null }>(
    `select ${TOTAL_SQL}::text as total, (select json_object_agg(status, n) from ${own} as own) as counts`,
  )
  const counted = row?.counts ?? {}
  const counts = Object.fromEntries(
    ENTRY_STATUSES.map((status) => [status, counted[status] ?? 0]),
  ) as StatusCounts
  const others = Object.values(counts).reduce((sum, n) => sum + n, 0)
  counts.waiting = Number(row?.total ?? 0) - others
  return counts
}
