/** Where a page of the studio's list starts: the created_at and id of the entry it starts after. */
export interface Key {
  /** UTC with microseconds (CREATED_AT_UTC), so that text order is time order. */
  createdAt: string
  id: string
}

/** A cursor that is not one this module wrote: a 400 for the studio. */
export class BadCursorError extends Error {}

const CURSOR = /^(\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)_(\d{1,18})$/

export function parseCursor(cursor: string): Key {
  const [, createdAt, id] = CURSOR.exec(cursor) ?? []
  if (!createdAt || !id) throw new BadCursorError('after and before take a cursor from the previous answer')
  return { createdAt, id }
}

export const cursorOf = (key: Key) => `${key.createdAt}_${key.id}`

/** The list's order, newest first: created_at, then id, both descending. */
export function newestFirst(a: Key, b: Key): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1
  const [x, y] = [BigInt(a.id), BigInt(b.id)]
  return x === y ? 0 : x < y ? 1 : -1
}
