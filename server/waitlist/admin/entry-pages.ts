import type { Queryable } from '../../db/database'
import { type EmailSearch, emailSearch } from './email-search'
import { ENTRY_COLUMNS, ENTRY_SOURCE } from './entry-columns'
import { BadCursorError, cursorOf, parseCursor } from './entry-cursor'
import { bindParameters, type EntryFilter, filterConditions, LATEST_BATCH, whereOf } from './entry-filter'
import { type EntrySort, type Key, NEWEST_FIRST, sortKey, sortKeyText } from './entry-sort'
import { allMatching, pageOfKeys } from './short-search'
import { countEntries, type Entry } from './waitlist-admin'

/**
 * The studio's list, a page at a time by keyset, in any column's order either way (entry-sort.ts;
 * newest first unless asked): a page starts after the (key, id) of the last entry of the one before,
 * where OFFSET would read and drop every row before it. Newest first, that key is created_at, found
 * on the waitlist_created_at_id index however deep the page is. A search is a substring of the
 * address, in any letter case (email-search.ts), found in one pass (short-search.ts); a filter
 * (entry-filter.ts) narrows both.
 */

export { BadCursorError }

/** A search matching more than this many entries says "more than" rather than count them all. */
export const MATCHING_CAP = 10_000

/**
 * A row of the studio's table: the entry as export writes it, the person's name ('' for none), and
 * its batch (the latest invitation's).
 */
export type PageEntry = Entry & { name: string; batch: string }

export interface EntryPage {
  entries: PageEntry[]
  /** Entries matching the search (all of them without one), at most MATCHING_CAP for a search. */
  matching: number
  /** More than `matching` entries match. */
  capped: boolean
  /** Where the next and the previous page start; null at either end. */
  next: string | null
  previous: string | null
}

type Row = PageEntry & { id: string; sort_key: string }
/** Along the sort's order, or back against it. */
type Direction = 'forward' | 'back'

const keyOf = (row: Row): Key => ({ value: row.sort_key, id: row.id })

const COLUMNS = [
  ...ENTRY_COLUMNS.map((column) => `${column.read} as ${column.name}`),
  `coalesce((${LATEST_BATCH('waitlist')})::text, '') as batch`,
].join(', ')

/** What a page shows: the entries the search (if any) and the filter match, in the sort's order. */
interface Matching {
  search: EmailSearch | null
  filter: EntryFilter
  sort: EntrySort
}

/** Which way the rows run: the sort's own, or against it. */
const ascending = (sort: EntrySort, direction: Direction) => (direction === 'forward') !== sort.descending

/**
 * The conditions for a search, or none, the filter, past a key (or at it, `inclusive`), or none;
 * every value a parameter.
 */
function whereClause(
  matching: Matching,
  past: { key: Key; direction: Direction; inclusive?: boolean } | undefined,
  params: unknown[],
) {
  const { search, filter, sort } = matching
  const conditions: string[] = []
  if (search !== null) {
    params.push(search.pattern)
    const address = search.condition(params.length)
    if (search.name) params.push(search.name.pattern)
    conditions.push(search.name ? `(${address} or ${search.name.condition(params.length)})` : address)
  }
  conditions.push(...filterConditions(filter, bindParameters(params)))
  if (past) {
    const key = sortKey(sort)
    params.push(past.key.value, past.key.id)
    const beyond = `${ascending(sort, past.direction) ? '>' : '<'}${past.inclusive ? '=' : ''}`
    conditions.push(
      `(${key.sql}, waitlist.id) ${beyond} ($${params.length - 1}::${key.type}, $${params.length}::bigint)`,
    )
  }
  return whereOf(conditions)
}

/** Up to `limit` rows past `key` (or from it, `inclusive`) in `direction`, nearest first. */
function rowsPast(
  db: Queryable,
  matching: Matching,
  past: { key: Key | undefined; direction: Direction; inclusive?: boolean },
  limit: number,
) {
  const params: unknown[] = []
  const { key, direction } = past
  const where = whereClause(matching, key && { ...past, key }, params)
  const way = ascending(matching.sort, direction) ? 'asc' : 'desc'
  const order = `${sortKey(matching.sort).sql} ${way}, waitlist.id ${way}`
  params.push(limit)
  // The order names the table's columns: bare, `created_at` and `id` would be the text ones selected.
  // Each row of the page finds its status, answers and marks by their tables' keys: a lookup a row,
  // not a join of the list. The page's keys first, then its columns: a filter met by thousands
  // (waiting researchers) would otherwise format every one of them before the sort kept a page
  // (0.25 s against 0.14 s at a million).
  return db.query<Row>(
    `select ${COLUMNS}, waitlist.id::text as id, ${sortKeyText(matching.sort)} as sort_key from ${ENTRY_SOURCE}
      where waitlist.id in (select waitlist.id from ${ENTRY_SOURCE} ${where} order by ${order} limit $${params.length})
      order by ${order}`,
    params,
  )
}

async function anyPast(db: Queryable, matching: Matching, key: Key, direction: Direction, inclusive = false) {
  return (await rowsPast(db, matching, { key, direction, inclusive }, 1)).length > 0
}

/** The entries of a page found by key (short-search.ts), in the sort's order. */
async function rowsWithIds(db: Queryable, keys: Key[]) {
  if (keys.length === 0) return []
  const rows = await db.query<Row>(
    `select ${COLUMNS}, waitlist.id::text as id from ${ENTRY_SOURCE} where waitlist.id = any($1::bigint[])`,
    [keys.map((key) => key.id)],
  )
  const byId = new Map(rows.map((row) => [row.id, row]))
  return keys.flatMap((key) => byId.get(key.id) ?? [])
}

const withoutKeys = (rows: Row[]): PageEntry[] => rows.map(({ id: _id, sort_key: _key, ...entry }) => entry)
const links = (page: { next: string | null; previous: string | null }) => ({
  next: page.next,
  previous: page.previous,
})

/**
 * Entries from `key` on (or from the first); a previous page exists if anything comes before. Both
 * read side by side: the entries before the first shown are those from `key` back, since none
 * between them matched. The first page has none before it.
 */
async function forwardPage(db: Queryable, matching: Matching, key: Key | undefined, limit: number) {
  const [rows, before] = await Promise.all([
    rowsPast(db, matching, { key, direction: 'forward' }, limit + 1),
    key === undefined ? false : anyPast(db, matching, key, 'back', true),
  ])
  const shown = rows.slice(0, limit)
  const last = shown.at(-1)
  const top = shown[0] ? keyOf(shown[0]) : key
  return {
    shown,
    next: rows.length > limit && last ? cursorOf(keyOf(last)) : null,
    previous: before && top ? cursorOf(top) : null,
  }
}

/** The entries before `key`; when no more than a page is left, the first page itself. */
async function backPage(db: Queryable, matching: Matching, key: Key, limit: number) {
  const rows = await rowsPast(db, matching, { key, direction: 'back' }, limit + 1)
  const shown = rows.slice(0, limit).reverse()
  const [first] = shown
  const last = shown.at(-1)
  if (rows.length <= limit || !first || !last) return forwardPage(db, matching, undefined, limit)
  const after = await anyPast(db, matching, keyOf(last), 'forward')
  return { shown, next: after ? cursorOf(keyOf(last)) : null, previous: cursorOf(keyOf(first)) }
}

/**
 * One page of entries, in the sort's order (newest first unless asked), whose address contains
 * `search` (any letter case) and that the filter matches: the first, or the one after (`after`) or
 * before (`before`) a cursor from an earlier answer in the same order.
 */
export async function pageEntries(
  db: Queryable,
  options: {
    search?: string
    filter?: EntryFilter
    sort?: EntrySort
    after?: string
    before?: string
    limit: number
  },
): Promise<EntryPage> {
  const sort = options.sort ?? NEWEST_FIRST
  const before = options.before === undefined ? undefined : parseCursor(options.before, sort)
  const after = options.after === undefined ? undefined : parseCursor(options.after, sort)
  const search = options.search ? emailSearch(options.search) : null
  const matching = { search, filter: options.filter ?? {}, sort }
  if (search) {
    // One pass for every match's key, the page cut from them: no second pass to count them.
    const keys = await allMatching(db, search, matching.filter, sort, MATCHING_CAP)
    if (keys) {
      const page = pageOfKeys(keys, sort, { after, before, limit: options.limit })
      const rows = await rowsWithIds(db, page.shown)
      return { entries: withoutKeys(rows), matching: keys.length, capped: false, ...links(page) }
    }
  }
  // The whole list, or a search matching more than MATCHING_CAP: dense, so a walk in the sort's
  // order meets a page of them at once. The page and its count are read side by side: one round
  // trip, however far the database is.
  const [page, counted] = await Promise.all([
    before ? backPage(db, matching, before, options.limit) : forwardPage(db, matching, after, options.limit),
    search
      ? { matching: MATCHING_CAP, capped: true }
      : countEntries(db, matching.filter).then((count) => ({ matching: count, capped: false })),
  ])
  return { entries: withoutKeys(page.shown), ...counted, ...links(page) }
}
