import type { MiddlewareHandler } from 'hono'
import { clientAddress, rateLimitKey } from './client-address'

export interface RateLimitOptions {
  /** Sustained writes per minute per client; 0 turns the limiter off. */
  perMinute: number
  /** Writes a client may make back to back before the sustained rate applies. */
  burst: number
  /** Most clients remembered at once; beyond it the least recently seen are forgotten. */
  maxClients?: number
  now?: () => number
}

interface Bucket {
  tokens: number
  updated: number
}

/**
 * A token bucket per client: `burst` tokens, refilled at `perMinute` a minute. Memory is bounded:
 * a bucket that has refilled completely is the same as no bucket, so those go first, then the
 * least recently used ones.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>()
  readonly #perMs: number
  readonly #burst: number
  readonly #maxClients: number
  readonly #now: () => number

  constructor(options: RateLimitOptions) {
    this.#perMs = options.perMinute / 60_000
    this.#burst = Math.max(1, options.burst)
    this.#maxClients = options.maxClients ?? 10_000
    this.#now = options.now ?? Date.now
  }

  get size(): number {
    return this.#buckets.size
  }

  /** The most tokens a client can hold, so the most one request can ever be charged. */
  get burst(): number {
    return this.#burst
  }

  /**
   * Takes `count` tokens for `key`, all or none; returns 0 when allowed, else the seconds until
   * that many are free (never, for more than the burst: callers check that first).
   */
  take(key: string, count = 1): number {
    const now = this.#now()
    const bucket = this.#buckets.get(key)
    let tokens = this.#burst
    if (bucket) {
      tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updated) * this.#perMs)
      this.#buckets.delete(key) // re-inserted below, so Map order is least recently used first
    }
    const allowed = tokens >= count
    if (allowed) tokens -= count
    this.#buckets.set(key, { tokens, updated: now })
    if (this.#buckets.size > this.#maxClients) this.#evict(now)
    return allowed ? 0 : Math.max(1, Math.ceil((count - tokens) / this.#perMs / 1000))
  }

  #evict(now: number) {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updated) * this.#perMs >= this.#burst) this.#buckets.delete(key)
    }
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= this.#maxClients) break
      this.#buckets.delete(key)
    }
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Limits writes (inserts, and any other change) per client address. `onLimited` answers a
 * refused request; reads, preflights and page loads pass untouched.
 */
export function rateLimit(
  limiter: RateLimiter | undefined,
  trustHeader: string | undefined,
  onLimited: (retryAfter: number) => Response,
): MiddlewareHandler {
  return async (c, next) => {
    if (!limiter || !WRITE_METHODS.has(c.req.method)) return next()
    const retryAfter = limiter.take(rateLimitKey(clientAddress(c, trustHeader)))
    if (retryAfter > 0) return onLimited(retryAfter)
    return next()
  }
}
