import type { Queryable } from '../../db/database'
import { type EmailSearch, emailSearch } from './email-search'
import { ENTRY_COLUMNS, ENTRY_SOURCE } from './entry-columns'
import { BadCursorError, cursorOf, type Key, parseCursor } from './entry-cursor'
import { bindParameters, type EntryFilter, filterConditions, whereOf } from './entry-filter'
import { allMatching, pageOfKeys } from './short-search'
import { countEntries, type Entry } from './waitlist-admin'

/**
 * The studio's list, newest first, a page at a time by keyset: a page starts after the last
 * (created_at, id) of the one before, found on the waitlist_created_at_id index however deep it is,
 * where OFFSET would read and drop every row before it. A search is a substring of the address, in
 * any letter case (email-search.ts), found in one pass (short-search.ts); a filter (entry-filter.ts)
 * narrows both.
 */

export { BadCursorError }

/** A search matching more than this many entries says "more than" rather than count them all. */
export const MATCHING_CAP = 10_000

export interface EntryPage {
  entries: Entry[]
  /** Entries matching the search (all of them without one), at most MATCHING_CAP for a search. */
  matching: number
  /** More than `matching` entries match. */
  capped: boolean
  /** Where the next (older) and the previous (newer) page start; null at either end. */
  next: string | null
  previous: string | null
}

const keyOf = (row: Row): Key => ({ createdAt: row.created_at, id: row.id })

type Row = Entry & { id: string }
type Direction = 'older' | 'newer'

const COLUMNS = ENTRY_COLUMNS.map((column) => `${column.read} as ${column.name}`).join(', ')

/** What a page shows: the entries the search (if any) and the filter match. */
interface Matching {
  search: EmailSearch | null
  filter: EntryFilter
}

/** The conditions for a search, or none, the filter, past a key, or none; every value a parameter. */
function whereClause(matching: Matching, key: Key | undefined, direction: Direction, params: unknown[]) {
  const { search, filter } = matching
  const conditions: string[] = []
  if (search !== null) {
    params.push(search.pattern)
    conditions.push(search.condition(params.length))
  }
  conditions.push(...filterConditions(filter, bindParameters(params)))
  if (key) {
    params.push(key.createdAt, key.id)
    const past = direction === 'older' ? '<' : '>'
    conditions.push(
      `(waitlist.created_at, waitlist.id) ${past} ($${params.length - 1}::timestamptz, $${params.length}::bigint)`,
    )
  }
  return whereOf(conditions)
}

/** Up to `limit` rows past `key` in `direction`, nearest first. */
function rowsPast(
  db: Queryable,
  matching: Matching,
  key: Key | undefined,
  direction: Direction,
  limit: number,
) {
  const params: unknown[] = []
  const where = whereClause(matching, key, direction, params)
  const way = direction === 'older' ? 'desc' : 'asc'
  const order = `waitlist.created_at ${way}, waitlist.id ${way}`
  params.push(limit)
  // The order names the table's columns: bare, `created_at` and `id` would be the text ones selected.
  // Each row of the page finds its status by the status table's key: a lookup a row, not a join of the list.
  // The page's keys first, then its columns: a filter met by thousands (waiting researchers) would
  // otherwise format every one of them before the sort kept a page (0.25 s against 0.14 s at a million).
  return db.query<Row>(
    `select ${COLUMNS}, waitlist.id::text as id from ${ENTRY_SOURCE}
      where waitlist.id in (select waitlist.id from ${ENTRY_SOURCE} ${where} order by ${order} limit $${params.length})
      order by ${order}`,
    params,
  )
}

async function anyPast(db: Queryable, matching: Matching, key: Key, direction: Direction) {
  return (await rowsPast(db, matching, key, direction, 1)).length > 0
}

/** Whether the entry at `key` or any newer one matches: whether a page that starts after `key` has one before it. */
async function anyFrom(db: Queryable, matching: Matching, key: Key) {
  // Newer than the key's own instant less one id: the key's entry itself, and all newer.
  const before: Key = { createdAt: key.createdAt, id: String(BigInt(key.id) - 1n) }
  return anyPast(db, matching, before, 'newer')
}

/** The entries of a page found by key (short-search.ts), newest first. */
function rowsWithIds(db: Queryable, keys: Key[]) {
  if (keys.length === 0) return Promise.resolve([])
  return db.query<Row>(
    `select ${COLUMNS}, waitlist.id::text as id from ${ENTRY_SOURCE} where waitlist.id = any($1::bigint[])
      order by waitlist.created_at desc, waitlist.id desc`,
    [keys.map((key) => key.id)],
  )
}

const withoutIds = (rows: Row[]): Entry[] => rows.map(({ id: _id, ...entry }) => entry)
const links = (page: { next: string | null; previous: string | null }) => ({
  next: page.next,
  previous: page.previous,
})

/**
 * Older entries from `key` (or from the newest); a previous page exists if anything is newer. Both
 * read side by side: the entries newer than the first shown are those from `key` on, since none
 * between them matched. The first page has none before it.
 */
async function olderPage(db: Queryable, matching: Matching, key: Key | undefined, limit: number) {
  const [rows, newer] = await Promise.all([
    rowsPast(db, matching, key, 'older', limit + 1),
    key === undefined ? false : anyFrom(db, matching, key),
  ])
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  const top = shown[0] ? keyOf(shown[0]) : key
  return {
    shown,
    next: rows.length > limit && last ? cursorOf(keyOf(last)) : null,
    previous: newer && top ? cursorOf(top) : null,
  }
}

/** Newer entries from `key`; when no more than a page is left, the first page itself. */
async function newerPage(db: Queryable, matching: Matching, key: Key, limit: number) {
  const rows = await rowsPast(db, matching, key, 'newer', limit + 1)
  const shown = rows.slice(0, limit).reverse()
  const [first] = shown
  const last = shown.at(-1)
  if (rows.length <= limit || !first || !last) return olderPage(db, matching, undefined, limit)
  const older = await anyPast(db, matching, keyOf(last), 'older')
  return { shown, next: older ? cursorOf(keyOf(last)) : null, previous: cursorOf(keyOf(first)) }
}

/**
 * One page of entries, newest first, whose address contains `search` (any letter case) and that
 * the filter matches: the first, or the one after (`after`, older) or before (`before`, newer) a
 * cursor from an earlier answer.
 */
export async function pageEntries(
  db: Queryable,
  options: { search?: string; filter?: EntryFilter; after?: string; before?: string; limit: number },
): Promise<EntryPage> {
  const before = options.before === undefined ? undefined : parseCursor(options.before)
  const after = options.after === undefined ? undefined : parseCursor(options.after)
  const search = options.search ? emailSearch(options.search) : null
  const matching = { search, filter: options.filter ?? {} }
  if (search) {
    // One pass for every match's key, the page cut from them: no second pass to count them.
    const keys = await allMatching(db, search, matching.filter, MATCHING_CAP)
    if (keys) {
      const page = pageOfKeys(keys, { after, before, limit: options.limit })
      const rows = await rowsWithIds(db, page.shown)
      return { entries: withoutIds(rows), matching: keys.length, capped: false, ...links(page) }
    }
  }
  // The whole list, or a search matching more than MATCHING_CAP: dense, so the created_at index
  // walked newest first meets a page of them at once. The page and its count are read side by
  // side: one round trip, however far the database is.
  const [page, counted] = await Promise.all([
    before ? newerPage(db, matching, before, options.limit) : olderPage(db, matching, after, options.limit),
    search
      ? { matching: MATCHING_CAP, capped: true }
      : countEntries(db, matching.filter).then((count) => ({ matching: count, capped: false })),
  ])
  return { entries: withoutIds(page.shown), ...counted, ...links(page) }
}
