import type { Queryable } from '../../db/database'
import type { EmailSearch } from './email-search'
import { CREATED_AT_UTC, ENTRY_SOURCE } from './entry-columns'
import { cursorOf, type Key, newestFirst } from './entry-cursor'
import { bindParameters, type EntryFilter, filterConditions, whereOf } from './entry-filter'

/**
 * A search, paged and counted by separate queries, was two or three passes over its matches: past
 * the studio's 300 ms at a million where that is a scan of the list (a search without a trigram,
 * "a" or "zq", some 160 ms a pass) or a recheck of many candidates. Here it is one pass that finds
 * every match's key, and the page is cut from them.
 */

/**
 * Every entry the search and the filter match, newest first, from one pass (the trigram index, or a scan that
 * PostgreSQL runs in parallel); undefined past `cap` candidates: the matches are then dense, and a
 * page's index scan on created_at finds them at once.
 */
export async function allMatching(
  db: Queryable,
  search: EmailSearch,
  filter: EntryFilter,
  cap: number,
): Promise<Key[] | undefined> {
  const params: unknown[] = [search.pattern]
  const conditions = [search.candidates(1), ...filterConditions(filter, bindParameters(params))]
  params.push(cap + 1)
  // The candidates first, and the exact test on them: see EmailSearch.candidates.
  const rows = await db.query<Key & { exact: boolean }>(
    `select "createdAt", id, ${search.exact(1)} as exact
       from (select ${CREATED_AT_UTC} as "createdAt", waitlist.id::text as id, email
               from ${ENTRY_SOURCE} ${whereOf(conditions)} limit $${params.length}) as candidates`,
    params,
  )
  if (rows.length > cap) return undefined
  return rows
    .filter((row) => row.exact)
    .map(({ createdAt, id }) => ({ createdAt, id }))
    .sort(newestFirst)
}

export interface KeyPage {
  shown: Key[]
  next: string | null
  previous: string | null
}

const newer = (a: Key, b: Key) => newestFirst(a, b) < 0

/**
 * The page of `keys` (every match, newest first) that entry-pages.ts's queries would give: the
 * first, or the one older than `after`, or the one newer than `before` (the first when no more than
 * a page is newer).
 */
export function pageOfKeys(keys: Key[], options: { after?: Key; before?: Key; limit: number }): KeyPage {
  const { after, before, limit } = options
  if (before) {
    const newerCount = keys.filter((key) => newer(key, before)).length
    if (newerCount <= limit) return pageOfKeys(keys, { limit })
    const shown = keys.slice(newerCount - limit, newerCount)
    const [first, last] = [shown[0] as Key, shown.at(-1) as Key]
    return { shown, previous: cursorOf(first), next: newerCount < keys.length ? cursorOf(last) : null }
  }
  const start = after ? keys.filter((key) => !newer(after, key)).length : 0
  const shown = keys.slice(start, start + limit)
  const last = shown.at(-1)
  const top = shown[0] ?? after
  const newest = keys[0]
  return {
    shown,
    next: start + limit < keys.length && last ? cursorOf(last) : null,
    previous: top && newest && newer(newest, top) ? cursorOf(top) : null,
  }
}
