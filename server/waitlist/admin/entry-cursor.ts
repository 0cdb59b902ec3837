import type { EntrySort, Key } from './entry-sort'

/**
 * Where a page of the studio's list starts: the sort key and id of the entry it starts after,
 * written `KEY_ID` (signed up's key is UTC with microseconds, so the newest-first cursor reads as
 * it always has: `2026-11-01T09:00:00.000000Z_42`).
 */

/** A cursor that is not one this module wrote: a 400 for the studio. */
export class BadCursorError extends Error {}

const SIGNED_UP = /^\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/
const ID = /^\d{1,18}$/
/** Longer than any key (an answer of 500 characters, fifty tags): a cursor the studio did not write. */
const MAX_CURSOR = 2000

export function parseCursor(cursor: string, sort: EntrySort): Key {
  const at = cursor.lastIndexOf('_')
  const value = cursor.slice(0, Math.max(at, 0))
  const id = cursor.slice(at + 1)
  const valid =
    at >= 0 &&
    cursor.length <= MAX_CURSOR &&
    ID.test(id) &&
    (sort.column !== 'created_at' || SIGNED_UP.test(value))
  if (!valid) throw new BadCursorError('after and before take a cursor from the previous answer')
  return { value, id }
}

export const cursorOf = (key: Key) => `${key.value}_${key.id}`
