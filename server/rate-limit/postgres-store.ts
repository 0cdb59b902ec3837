import type { Database } from '../db/database'
import type { RateLimitOptions, RateLimitStore } from './rate-limit'

// The request's token, then its further rows (migration 20261125110000).
const CHARGE_SQL = 'select private.charge_rate_limit($1, 1, $2, $3, $4) as retry'
const SWEEP_SQL =
  'delete from private.rate_limit_buckets where updated_at < clock_timestamp() - make_interval(secs => $1)'
const SWEEP_EVERY_MS = 60_000

/**
 * Token buckets in the database (private.rate_limit_buckets), so every server on one DATABASE_URL
 * charges the same bucket per address: one limit, however many servers. A charge is a statement of
 * its own, before the route writes (ADR 064). The rule is MemoryStore's, on the database's clock.
 */
export class PostgresStore implements RateLimitStore {
  readonly burst: number
  readonly #perMinute: number
  readonly #sweep: NodeJS.Timeout

  constructor(
    private readonly db: Database,
    options: RateLimitOptions,
  ) {
    this.#perMinute = options.perMinute
    this.burst = Math.max(1, options.burst)
    // A bucket untouched for as long as an empty one takes to fill is full: the same as none.
    const refillSeconds = (this.burst / this.#perMinute) * 60
    this.#sweep = setInterval(() => {
      db.query(SWEEP_SQL, [refillSeconds]).catch(() => {})
    }, SWEEP_EVERY_MS)
    this.#sweep.unref()
  }

  async take(key: string, rows: number): Promise<number> {
    const [row] = await this.db.query<{ retry: number }>(CHARGE_SQL, [
      key,
      rows - 1,
      this.#perMinute,
      this.burst,
    ])
    return row?.retry ?? 0
  }

  close(): void {
    clearInterval(this.#sweep)
  }
}
