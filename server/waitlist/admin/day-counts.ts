import type { Queryable } from '../../db/database'
import { DAY_SIGNUPS, foldKept, keptRows } from './kept-counts'

/**
 * The per-day counts that triggers keep (20261125210000_waitlist_day_counts.sql): each write
 * appends its change to waitlist_day_deltas; a read folds the deltas into waitlist_day_counts and
 * adds up both, so it reads a row per day and per write since the last fold, never the list.
 */

/** Moves the days' deltas into their counts (kept-counts.ts). */
export const foldDayCounts = (db: Queryable) => foldKept(db, DAY_SIGNUPS)

const DAYS = keptRows(DAY_SIGNUPS, 'days')

/**
 * Every signup on the list, as a subquery for a statement of its own: the counts and the deltas not
 * yet folded, added up (a fold moves rows from one to the other in one statement, so a statement
 * sees each row once either way).
 */
export const TOTAL_SQL = `(select coalesce(sum(signups), 0) from ${DAYS})`

/** Every signup on the list. */
export async function countAll(db: Queryable): Promise<number> {
  await foldDayCounts(db)
  const [row] = await db.query<{ entries: string }>(
    `select coalesce(sum(signups), 0)::text as entries from ${DAYS}`,
  )
  return Number(row?.entries ?? 0)
}

/** Signups per UTC day (YYYY-MM-DD) from a day on, or all; days with none are left out. */
export async function countPerDay(
  db: Queryable,
  from: string | null,
): Promise<{ day: string; count: number }[]> {
  await foldDayCounts(db)
  return db.query<{ day: string; count: number }>(
    `select to_char(day, 'YYYY-MM-DD') as day, sum(signups)::int as count
       from ${DAYS}
      where $1::date is null or day >= $1::date
      group by day
     having sum(signups) <> 0
      order by day`,
    [from],
  )
}
