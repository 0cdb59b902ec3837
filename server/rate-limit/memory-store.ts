import { LRUCache } from 'lru-cache'
import type { RateLimitOptions, RateLimitStore } from './rate-limit'

interface Bucket {
  tokens: number
  updated: number
}

/**
 * A token bucket per client in this process: `burst` tokens, refilled at `perMinute` a minute.
 * Enough for the embedded database, which one server holds. Memory is bounded by lru-cache: at most
 * maxClients buckets, the least recently used dropped first, and each forgotten (ttl) once it has
 * refilled completely, when it is the same as no bucket. A hand-written LRU scanned every bucket
 * under a flood of new addresses (bench/results/from-code-comments.md).
 */
export class MemoryStore implements RateLimitStore {
  readonly #buckets: LRUCache<string, Bucket>
  readonly #perMs: number
  readonly #burst: number
  readonly #now: () => number

  constructor(options: RateLimitOptions & { maxClients?: number; now?: () => number }) {
    this.#perMs = options.perMinute / 60_000
    this.#burst = Math.max(1, options.burst)
    this.#now = options.now ?? Date.now
    // lru-cache reads the same clock at every look-up (no timer, no rounding).
    this.#buckets = new LRUCache({
      max: options.maxClients ?? 10_000,
      perf: { now: this.#now },
      ttlResolution: 0,
    })
  }

  get size(): number {
    return this.#buckets.size
  }

  get burst(): number {
    return this.#burst
  }

  take(key: string, rows: number): number {
    const now = this.#now()
    const bucket = this.#buckets.get(key)
    let tokens = bucket
      ? Math.min(this.#burst, bucket.tokens + (now - bucket.updated) * this.#perMs)
      : this.#burst
    // The request's token, then the further rows' all or none: a refused array still spends one.
    let short = 0
    if (tokens < 1) short = 1 - tokens
    else if (tokens < rows) [tokens, short] = [tokens - 1, rows - tokens]
    else tokens -= rows
    const refilledInMs = Math.max(1, (this.#burst - tokens) / this.#perMs)
    this.#buckets.set(key, { tokens, updated: now }, { ttl: refilledInMs, start: now })
    return short > 0 ? Math.max(1, Math.ceil(short / this.#perMs / 1000)) : 0
  }
}
