import type { Queryable } from '../../db/database'
import type { EmailSearch } from './email-search'
import { ENTRY_SOURCE } from './entry-columns'
import { cursorOf } from './entry-cursor'
import { bindParameters, type EntryFilter, filterConditions, whereOf } from './entry-filter'
import { compareKeys, type EntrySort, type Key, sortKeyText } from './entry-sort'

/**
 * A search, paged and counted by separate queries, was two or three passes over its matches: past
 * the studio's 300 ms at a million where that is a scan of the list (a search without a trigram,
 * "a" or "zq", some 160 ms a pass) or a recheck of many candidates. Here it is one pass that finds
 * every match's key, and the page is cut from them.
 */

/**
 * Every entry the search and the filter match, in the sort's order, from one pass (the trigram
 * index, or a scan that PostgreSQL runs in parallel), each with its sort key; undefined past `cap`
 * candidates: the matches are then dense, and a page's own query finds them at once.
 */
export async function allMatching(
  db: Queryable,
  search: EmailSearch,
  filter: EntryFilter,
  sort: EntrySort,
  cap: number,
): Promise<Key[] | undefined> {
  const params: unknown[] = [search.pattern]
  const conditions = [search.candidates(1), ...filterConditions(filter, bindParameters(params))]
  params.push(cap + 1)
  // The candidates first, and the exact test on them: see EmailSearch.candidates.
  const rows = await db.query<Key & { exact: boolean }>(
    `select value, id, ${search.exact(1)} as exact
       from (select ${sortKeyText(sort)} as value, waitlist.id::text as id, email
               from ${ENTRY_SOURCE} ${whereOf(conditions)} limit $${params.length}) as candidates`,
    params,
  )
  if (rows.length > cap) return undefined
  const named = search.name ? await namedMatching(db, search.name, filter, sort, cap) : []
  if (named === undefined) return undefined
  const found = new Map(rows.filter((row) => row.exact).map(({ value, id }) => [id, { value, id }]))
  for (const key of named) found.set(key.id, key)
  if (found.size > cap) return undefined
  return [...found.values()].sort((a, b) => compareKeys(sort, a, b))
}

/**
 * The entries whose name matches, from the names' own table (only the named are in it), with the
 * filter; undefined past `cap`.
 */
async function namedMatching(
  db: Queryable,
  name: NonNullable<EmailSearch['name']>,
  filter: EntryFilter,
  sort: EntrySort,
  cap: number,
): Promise<Key[] | undefined> {
  const params: unknown[] = [name.pattern]
  const conditions = [name.condition(1), ...filterConditions(filter, bindParameters(params))]
  params.push(cap + 1)
  const rows = await db.query<Key>(
    `select ${sortKeyText(sort)} as value, waitlist.id::text as id
       from ${ENTRY_SOURCE} ${whereOf(conditions)} limit $${params.length}`,
    params,
  )
  return rows.length > cap ? undefined : rows
}

export interface KeyPage {
  shown: Key[]
  next: string | null
  previous: string | null
}

/**
 * The page of `keys` (every match, in the sort's order) that entry-pages.ts's queries would give:
 * the first, or the one after `after`, or the one before `before` (the first when no more than a
 * page comes before it).
 */
export function pageOfKeys(
  keys: Key[],
  sort: EntrySort,
  options: { after?: Key; before?: Key; limit: number },
): KeyPage {
  const { after, before, limit } = options
  const earlier = (a: Key, b: Key) => compareKeys(sort, a, b) < 0
  if (before) {
    const earlierCount = keys.filter((key) => earlier(key, before)).length
    if (earlierCount <= limit) return pageOfKeys(keys, sort, { limit })
    const shown = keys.slice(earlierCount - limit, earlierCount)
    const [first, last] = [shown[0] as Key, shown.at(-1) as Key]
    return { shown, previous: cursorOf(first), next: earlierCount < keys.length ? cursorOf(last) : null }
  }
  const start = after ? keys.filter((key) => !earlier(after, key)).length : 0
  const shown = keys.slice(start, start + limit)
  const last = shown.at(-1)
  const top = shown[0] ?? after
  const firstKey = keys[0]
  return {
    shown,
    next: start + limit < keys.length && last ? cursorOf(last) : null,
    previous: top && firstKey && earlier(firstKey, top) ? cursorOf(top) : null,
  }
}
