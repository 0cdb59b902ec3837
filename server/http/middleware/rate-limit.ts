import type { Context, MiddlewareHandler } from 'hono'
import type { KeptCharge } from '../../db/database'
import { clientAddress, rateLimitKey } from './client-address'
import { WriteCharge } from './write-charge'

export interface RateLimitOptions {
  /** Sustained writes per minute per client; 0 turns the limiter off. */
  perMinute: number
  /** Writes a client may make back to back before the sustained rate applies. */
  burst: number
}

/**
 * Token buckets per client address: in this process (MemoryRateLimiter, the embedded database's
 * one server), or in the database that several servers share (PostgresRateLimiter).
 */
export interface RateLimiter {
  /** The most tokens a client can hold, so the most one request can ever be charged. */
  readonly burst: number
  /**
   * Takes `count` tokens for `key` and then, only if those were there, `extra` more, all or none
   * (an array insert's further rows). 0 when all were taken, else the seconds until they would be.
   */
  take(key: string, count?: number, extra?: number): number | Promise<number>
  /** Where buckets live in the database: the charge of a write of `rows` rows, made in its own transaction. */
  chargeInWrite?(key: string, rows: number): KeptCharge
  /** Stops any work of its own (the database limiter's sweep). */
  close?(): void
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * The limiter's answer for one request. A database limiter that cannot be reached lets the request
 * through: its route then meets the same outage and answers it as it always has (503, the form's
 * error page, the tool's error), rather than a 500 from the limiter.
 */
export function retryAfterOf(limiter: RateLimiter, key: string): number | Promise<number> {
  const taken = limiter.take(key)
  return typeof taken === 'number' ? taken : taken.catch(() => 0)
}

export interface RateLimitRoute {
  /**
   * The route's writes carry the request's charge (writeChargeOf), so a database limiter charges
   * it in the write's own round trip. A request that reaches no write is charged after the route
   * answers, and a refusal then replaces that answer, as if it had been refused first.
   */
  chargedWithWrite?: boolean
}

/**
 * Limits writes (inserts, and any other change) per client address. `onLimited` answers a
 * refused request; reads, preflights and page loads pass untouched.
 */
export function rateLimit(
  limiter: RateLimiter | undefined,
  trustHeader: string | undefined,
  onLimited: (retryAfter: number, c: Context) => Response,
  route: RateLimitRoute = {},
): MiddlewareHandler {
  return async (c, next) => {
    if (!limiter || !WRITE_METHODS.has(c.req.method)) return next()
    const key = rateLimitKey(clientAddress(c, trustHeader))
    if (route.chargedWithWrite && limiter.chargeInWrite)
      return chargeWithWrite(c, next, limiter, key, onLimited)
    const taken = retryAfterOf(limiter, key)
    const retryAfter = typeof taken === 'number' ? taken : await taken
    if (retryAfter > 0) return onLimited(retryAfter, c)
    return next()
  }
}

async function chargeWithWrite(
  c: Context,
  next: () => Promise<void>,
  limiter: RateLimiter,
  key: string,
  onLimited: (retryAfter: number, c: Context) => Response,
): Promise<void> {
  const charge = WriteCharge.open(c, limiter, key)
  await next()
  // A 503 (the database queue full, or the database gone) is not charged afterwards: that would add
  // a statement for a database that is already turning work away.
  if (charge.made || c.res.status === 503) return
  // The route wrote nothing (a bad key, a bad body): it changed nothing, so a refusal can still answer.
  const retryAfter = await charge.takeNow().catch(() => 0)
  if (retryAfter > 0) c.res = onLimited(retryAfter, c)
}
