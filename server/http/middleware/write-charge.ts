import type { Context } from 'hono'
import type { KeptCharge } from '../../db/database'
import type { RateLimiter } from './rate-limit'

const open = new WeakMap<Request, WriteCharge>()

/**
 * One write request's charge to its address's bucket, waiting to be made inside the request's
 * write (runAsRole) with the limiter in the database, so the charge costs no round trip of its own.
 */
export class WriteCharge {
  #made = false
  /** The rows the write carries: each past the first costs one token more (ADR 017). */
  rows = 1

  private constructor(
    private readonly limiter: RateLimiter,
    private readonly key: string,
  ) {}

  static open(c: Context, limiter: RateLimiter, key: string): WriteCharge {
    const charge = new WriteCharge(limiter, key)
    open.set(c.req.raw, charge)
    return charge
  }

  get made(): boolean {
    return this.#made
  }

  /** The statements the write runs first; from here the charge counts as made. */
  inWrite(): KeptCharge | undefined {
    const kept = this.limiter.chargeInWrite?.(this.key, this.rows)
    this.#made = kept !== undefined
    return kept
  }

  /** Made now, in a round trip of its own: 0, or the seconds until the tokens are there. */
  async takeNow(): Promise<number> {
    this.#made = true
    return this.limiter.take(this.key, 1, this.rows - 1)
  }
}

/** The request's charge, when its route lets its writes carry it (rateLimit's chargedWithWrite). */
export function writeChargeOf(c: Context): WriteCharge | undefined {
  return open.get(c.req.raw)
}
