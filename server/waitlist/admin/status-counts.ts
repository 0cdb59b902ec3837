import { ENTRY_STATUSES, type EntryStatus } from '../../../contract/entry-statuses'
import type { Queryable } from '../../db/database'
import { TOTAL_SQL } from './day-counts'

/** How many entries have each status. */
export type StatusCounts = Record<EntryStatus, number>

/**
 * Entries by status, in one statement however long the list: the statuses with a row of their own
 * are counted on the status table's index (entry_status_by_status), and `waiting`, which mostly has
 * none (ADR 034), is the list's total from the per-day counts less all the others.
 */
export async function countByStatus(db: Queryable): Promise<StatusCounts> {
  const [row] = await db.query<{ total: string; counts: Record<string, number> | null }>(
    `select ${TOTAL_SQL}::text as total,
            (select json_object_agg(status, n)
               from (select status, count(*)::int as n from private.entry_status
                      where status <> 'waiting' group by status) as own) as counts`,
  )
  const own = row?.counts ?? {}
  const counts = Object.fromEntries(
    ENTRY_STATUSES.map((status) => [status, own[status] ?? 0]),
  ) as StatusCounts
  const others = Object.values(counts).reduce((sum, n) => sum + n, 0)
  counts.waiting = Number(row?.total ?? 0) - others
  return counts
}
