import type { Queryable } from '../../db/database'
import { type EmailSearch, emailSearch } from './email-search'
import { ENTRY_COLUMNS, ENTRY_SOURCE } from './entry-columns'
import { BadCursorError, cursorOf, type Key, parseCursor } from './entry-cursor'
import { allMatching, pageOfKeys } from './short-search'
import { countEntries, type Entry } from './waitlist-admin'

/**
 * The studio's list, newest first, a page at a time by keyset: a page starts after the last
 * (created_at, id) of the one before, found on the waitlist_created_at_id index however deep it is,
 * where OFFSET would read and drop every row before it. A search is a substring of the address, in
 * any letter case (email-search.ts), found in one pass (short-search.ts).
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

/** The query text for a search, or none, past a key, or none: four texts, never built from input. */
function whereClause(
  search: EmailSearch | null,
  key: Key | undefined,
  direction: Direction,
  params: unknown[],
) {
  const conditions: string[] = []
  if (search !== null) {
    params.push(search.pattern)
    conditions.push(search.condition(params.length))
  }
  if (key) {
    params.push(key.createdAt, key.id)
    const past = direction === 'older' ? '<' : '>'
    conditions.push(
      `(waitlist.created_at, waitlist.id) ${past} ($${params.length - 1}::timestamptz, $${params.length}::bigint)`,
    )
  }
  return conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''
}

/** Up to `limit` rows past `key` in `direction`, nearest first. */
function rowsPast(
  db: Queryable,
  search: EmailSearch | null,
  key: Key | undefined,
  direction: Direction,
  limit: number,
) {
  const params: unknown[] = []
  const where = whereClause(search, key, direction, params)
  const order = direction === 'older' ? 'desc' : 'asc'
  params.push(limit)
  // The order names the table's columns: bare, `created_at` and `id` would be the text ones selected.
  // Each row of the page finds its status by the status table's key: a lookup a row, not a join of the list.
  return db.query<Row>(
    `select ${COLUMNS}, waitlist.id::text as id from ${ENTRY_SOURCE} ${where}
      order by waitlist.created_at ${order}, waitlist.id ${order} limit $${params.length}`,
    params,
  )
}

async function anyPast(db: Queryable, search: EmailSearch | null, key: Key, direction: Direction) {
  return (await rowsPast(db, search, key, direction, 1)).length > 0
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

/** Older entries from `key` (or from the newest); a previous page exists if anything is newer. */
async function olderPage(db: Queryable, search: EmailSearch | null, key: Key | undefined, limit: number) {
  const rows = await rowsPast(db, search, key, 'older', limit + 1)
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  const top = shown[0] ? keyOf(shown[0]) : key
  const newer = top !== undefined && (await anyPast(db, search, top, 'newer'))
  return {
    shown,
    next: rows.length > limit && last ? cursorOf(keyOf(last)) : null,
    previous: newer && top ? cursorOf(top) : null,
  }
}

/** Newer entries from `key`; when no more than a page is left, the first page itself. */
async function newerPage(db: Queryable, search: EmailSearch | null, key: Key, limit: number) {
  const rows = await rowsPast(db, search, key, 'newer', limit + 1)
  const shown = rows.slice(0, limit).reverse()
  const [first] = shown
  const last = shown.at(-1)
  if (rows.length <= limit || !first || !last) return olderPage(db, search, undefined, limit)
  const older = await anyPast(db, search, keyOf(last), 'older')
  return { shown, next: older ? cursorOf(keyOf(last)) : null, previous: cursorOf(keyOf(first)) }
}

/**
 * One page of entries, newest first, whose address contains `search` (any letter case): the first,
 * or the one after (`after`, older) or before (`before`, newer) a cursor from an earlier answer.
 */
export async function pageEntries(
  db: Queryable,
  options: { search?: string; after?: string; before?: string; limit: number },
): Promise<EntryPage> {
  const before = options.before === undefined ? undefined : parseCursor(options.before)
  const after = options.after === undefined ? undefined : parseCursor(options.after)
  const search = options.search ? emailSearch(options.search) : null
  if (search) {
    // One pass for every match's key, the page cut from them: no second pass to count them.
    const keys = await allMatching(db, search, MATCHING_CAP)
    if (keys) {
      const page = pageOfKeys(keys, { after, before, limit: options.limit })
      const rows = await rowsWithIds(db, page.shown)
      return { entries: withoutIds(rows), matching: keys.length, capped: false, ...links(page) }
    }
  }
  // The whole list, or a search matching more than MATCHING_CAP: dense, so the created_at index
  // walked newest first meets a page of them at once.
  const page = before
    ? await newerPage(db, search, before, options.limit)
    : await olderPage(db, search, after, options.limit)
  const counted = search
    ? { matching: MATCHING_CAP, capped: true }
    : { matching: await countEntries(db), capped: false }
  return { entries: withoutIds(page.shown), ...counted, ...links(page) }
}
