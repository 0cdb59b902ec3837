import type { Queryable } from '../../db/database'

/**
 * A count kept beside the list by triggers (the days' signups, the statuses', the tags'): each write
 * appends its change to a deltas table; a fold moves the deltas into the counts table, and a read
 * adds up both, so it reads a row per key and per write since the last fold, never the list.
 */
export interface KeptCount {
  counts: string
  deltas: string
  /** The column both tables are keyed by (day, status, tag). */
  key: string
  /** The column that holds the count. */
  value: string
}

export const DAY_SIGNUPS: KeptCount = {
  counts: 'private.waitlist_day_counts',
  deltas: 'private.waitlist_day_deltas',
  key: 'day',
  value: 'signups',
}
export const STATUS_ENTRIES: KeptCount = {
  counts: 'private.entry_status_counts',
  deltas: 'private.entry_status_deltas',
  key: 'status',
  value: 'entries',
}
export const TAG_ENTRIES: KeptCount = {
  counts: 'private.entry_tag_counts',
  deltas: 'private.entry_tag_deltas',
  key: 'tag',
  value: 'entries',
}

/**
 * Moves the deltas into the counts, in one statement. Beside another fold, each takes only the rows
 * it deleted (a row being deleted by the other is waited for, then skipped); deltas appended
 * meanwhile stay for the next one.
 */
export async function foldKept(db: Queryable, { counts, deltas, key, value }: KeptCount): Promise<void> {
  await db.query(
    `with moved as (delete from ${deltas} returning ${key}, ${value})
     insert into ${counts} as counts (${key}, ${value})
     select ${key}, sum(${value}) from moved group by ${key}
     on conflict (${key}) do update set ${value} = counts.${value} + excluded.${value}`,
  )
}

/**
 * The counts and the deltas not yet folded, as one relation for a statement's FROM (a fold moves
 * rows from one to the other in one statement, so a statement sees each row once either way).
 */
export const keptRows = ({ counts, deltas, key, value }: KeptCount, alias: string) =>
  `(select ${key}, ${value} from ${counts} union all select ${key}, ${value} from ${deltas}) as ${alias}`
