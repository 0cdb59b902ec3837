import type { Context } from 'hono'
import { clientAddress, rateLimitKey } from '../middleware/client-address'
import type { RateLimiter } from '../middleware/rate-limit'
import { seconds } from '../middleware/seconds'
import { writeChargeOf } from '../middleware/write-charge'
import { PostgrestError } from './postgrest-error'

/**
 * Charges an insert of `rows` rows to the client's rate limit. The limiter in front of the REST app
 * has taken one token for the request; an array body pays for each further row, all or nothing,
 * before anything is written, so one request cannot carry more signups (and webhooks) than the
 * limit allows. With the limiter in the database the rows join the request's charge, made in the
 * insert's own transaction.
 */
export type RowCharge = (c: Context, rows: number) => Promise<void>

/** The answer to a write over the limit, whichever limiter refused it. */
export function tooManyRequests(retryAfter: number): PostgrestError {
  return new PostgrestError(
    429,
    'PGRST429',
    'Too many requests from this address',
    null,
    `Try again in ${seconds(retryAfter)}`,
    { 'Retry-After': String(retryAfter) },
  )
}

export function rowCharge(limiter: RateLimiter, trustHeader: string | undefined): RowCharge {
  return async (c, rows) => {
    if (rows <= 1) return
    if (rows > limiter.burst) {
      throw new PostgrestError(
        429,
        'PGRST429',
        `Too many rows in one request: at most ${limiter.burst} with this key`,
        `${rows} rows were sent; each row counts against the per-address insert limit`,
        'Send fewer rows per request; bulk inserts need the service_role key',
      )
    }
    const pending = writeChargeOf(c)
    if (pending) {
      pending.rows = rows
      return
    }
    const retryAfter = await limiter.take(rateLimitKey(clientAddress(c, trustHeader)), rows - 1)
    if (retryAfter > 0) throw tooManyRequests(retryAfter)
  }
}
