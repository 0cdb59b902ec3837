import type { Context, Env, MiddlewareHandler } from 'hono'
import { clientAddress, rateLimitKey } from './client-address'

export interface RateLimitOptions {
  /** Sustained writes per minute per client; 0 turns the limiter off. */
  perMinute: number
  /** Writes a client may make back to back before the sustained rate applies. */
  burst: number
}

/**
 * Token buckets per client address: in this process (MemoryStore, the embedded database's one
 * server), or in the database that several servers share (PostgresStore).
 */
export interface RateLimitStore {
  /** The most tokens a client can hold, so the most rows one request can ever write. */
  readonly burst: number
  /**
   * Takes the request's token for `key` and then, only if it was there, one more for each row past
   * the first, all or none (ADR 017). 0 when all were taken, else the seconds until they would be.
   */
  take(key: string, rows: number): number | Promise<number>
  /** Stops any work of its own (the database store's sweep). */
  close?(): void
}

/** Why a write was refused, for each route to answer in its own format. */
export interface Refusal {
  message: string
  details: string | null
  hint: string
  /** Absent when waiting cannot help (more rows than the burst). */
  retryAfter?: number
}

/** A wait as people write it: "1 second", "12 seconds". */
export const seconds = (count: number) => (count === 1 ? '1 second' : `${count} seconds`)

export const tooManyRequests = (retryAfter: number): Refusal => ({
  message: 'Too many requests from this address',
  details: null,
  hint: `Try again in ${seconds(retryAfter)}`,
  retryAfter,
})

const tooManyRows = (rows: number, burst: number): Refusal => ({
  message: `Too many rows in one request: at most ${burst} with this key`,
  details: `${rows} rows were sent; each row counts against the per-address insert limit`,
  hint: 'Send fewer rows per request; bulk inserts need the service_role key',
})

/** The Retry-After header a refusal carries, if waiting helps. */
export const retryAfterHeader = ({ retryAfter }: Refusal): Record<string, string> =>
  retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) }

export interface RateLimitRoute<E extends Env> {
  /**
   * The rows the request writes, from the body already read (c.get of what the route parsed):
   * 0 charges nothing (an MCP message that calls no tool). Without it, one.
   */
  rows?: (c: Context<E>) => number | Promise<number>
  /** The route's answer to a refusal: its error page, PostgREST's 429, a JSON-RPC error. */
  refuse: (refusal: Refusal, c: Context<E>) => Response | Promise<Response>
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * The one rate limit, for every route that writes: charged before the route runs, in full, so a
 * bad body or a duplicate costs its tokens as a good one does. Routes put it after the database
 * gate: with the Postgres store a charge is a statement like the route's own, and a full queue
 * answers 503 without one. Reads and preflights pass untouched.
 */
export function rateLimit<E extends Env>(
  store: RateLimitStore | undefined,
  trustHeader: string | undefined,
  route: RateLimitRoute<E>,
): MiddlewareHandler<E> {
  return async (c, next) => {
    if (!store || !WRITE_METHODS.has(c.req.method)) return next()
    const rows = route.rows ? await route.rows(c) : 1
    if (rows === 0) return next()
    if (rows > store.burst) return route.refuse(tooManyRows(rows, store.burst), c)
    const taken = store.take(rateLimitKey(clientAddress(c, trustHeader)), rows)
    // A database store that cannot be reached lets the request through: its route then meets the
    // same outage and answers it as it always has (503, the form's error page), not a 500 here.
    const retryAfter = typeof taken === 'number' ? taken : await taken.catch(() => 0)
    return retryAfter > 0 ? route.refuse(tooManyRequests(retryAfter), c) : next()
  }
}
