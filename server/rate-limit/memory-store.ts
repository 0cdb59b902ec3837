import type { RateLimitOptions, RateLimitStore } from './rate-limit'

interface Bucket {
  tokens: number
  updated: number
}

/**
 * A token bucket per client in this process: `burst` tokens, refilled at `perMinute` a minute.
 * Enough for the embedded database, which one server holds. Memory is bounded: a bucket that has
 * refilled completely is the same as no bucket, so those go first, then the least recently used.
 */
export class MemoryStore implements RateLimitStore {
  readonly #buckets = new Map<string, Bucket>()
  readonly #perMs: number
  readonly #burst: number
  readonly #maxClients: number
  readonly #now: () => number

  constructor(options: RateLimitOptions & { maxClients?: number; now?: () => number }) {
    this.#perMs = options.perMinute / 60_000
    this.#burst = Math.max(1, options.burst)
    this.#maxClients = options.maxClients ?? 10_000
    this.#now = options.now ?? Date.now
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
    let tokens = this.#burst
    if (bucket) {
      tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updated) * this.#perMs)
      this.#buckets.delete(key) // re-inserted below, so Map order is least recently used first
    }
    // The request's token, then the further rows' all or none: a refused array still spends one.
    let short = 0
    if (tokens < 1) short = 1 - tokens
    else if (tokens < rows) [tokens, short] = [tokens - 1, rows - tokens]
    else tokens -= rows
    this.#buckets.set(key, { tokens, updated: now })
    if (this.#buckets.size > this.#maxClients) this.#evict(now)
    return short > 0 ? Math.max(1, Math.ceil(short / this.#perMs / 1000)) : 0
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
