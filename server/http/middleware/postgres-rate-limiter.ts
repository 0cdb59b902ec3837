import type { Database, KeptCharge, Statement } from '../../db/database'
import type { RateLimiter, RateLimitOptions } from './rate-limit'

const CHARGE_SQL = 'select private.charge_rate_limit($1, $2, $3, $4, $5) as retry'
const CHECK: Statement = { sql: 'select private.refuse_rate_limited()', params: [], prepare: true }
const SWEEP_SQL =
  'delete from private.rate_limit_buckets where updated_at < clock_timestamp() - make_interval(secs => $1)'
const SWEEP_EVERY_MS = 60_000

/**
 * Token buckets in the database (private.rate_limit_buckets, migration 20261125110000), so every
 * server on one DATABASE_URL charges the same bucket per address: one limit, however many servers.
 * A write charges inside its own transaction (chargeInWrite); anything else takes its tokens in a
 * statement of its own. The rule is MemoryRateLimiter's, on the database's clock.
 */
export class PostgresRateLimiter implements RateLimiter {
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

  #charge(key: string, first: number, extra: number): Statement {
    return { sql: CHARGE_SQL, params: [key, first, extra, this.#perMinute, this.burst], prepare: true }
  }

  async take(key: string, count = 1, extra = 0): Promise<number> {
    const { sql, params } = this.#charge(key, count, extra)
    const [row] = await this.db.query<{ retry: number }>(sql, [...params])
    return row?.retry ?? 0
  }

  chargeInWrite(key: string, rows: number): KeptCharge {
    return { charge: this.#charge(key, 1, rows - 1), check: CHECK }
  }

  close(): void {
    clearInterval(this.#sweep)
  }
}
