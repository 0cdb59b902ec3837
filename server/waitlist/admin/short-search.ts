import type { Queryable } from '../../db/database'
import { CREATED_AT_UTC } from './entry-columns'
import { cursorOf, type Key, newestFirst } from './entry-cursor'

/**
 * A search the trigram index cannot serve: pg_trgm takes its trigrams from runs of letters and
 * digits, so a search without three in a row ("a", "@g", "o.c") is a scan of the whole list, some
 * 160 ms at a million. Paged and counted as other searches are, it was two scans, past the studio's
 * 300 ms; here it is one, and the page is cut from what it found.
 */
export const hasNoTrigram = (search: string) => !/[\p{L}\p{N}]{3}/u.test(search)

/**
 * Every entry the search matches, newest first, from one scan (PostgreSQL runs it in parallel);
 * undefined past `cap`: the matches are then dense, and a page's index scan finds them at once.
 */
export async function allMatching(db: Queryable, pattern: string, cap: number): Promise<Key[] | undefined> {
  const keys = await db.query<Key>(
    `select ${CREATED_AT_UTC} as "createdAt", id::text as id
       from public.waitlist where email::text ilike $1 limit $2`,
    [pattern, cap + 1],
  )
  return keys.length > cap ? undefined : keys.sort(newestFirst)
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
