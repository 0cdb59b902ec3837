import type { Context } from 'hono'
import {
  type Hit,
  type SignupDoor,
  SourceCounter,
  type SourceCounterOptions,
} from '../analytics/source-counter'
import type { SourceKey } from '../analytics/source-of'
import { clientAddress, rateLimitKey } from '../rate-limit/client-address'

export interface HttpSourceCounterOptions extends SourceCounterOptions {
  /** As the rate limiter: the header naming the client's address, when trusted. */
  trustProxyHeader?: string
}

/**
 * Counting by source as the routes call it: the request and the client's address read from Hono's
 * context, for server/analytics, which knows nothing of HTTP's plumbing.
 */
export class HttpSourceCounter {
  readonly #counter: SourceCounter
  readonly #trustProxyHeader: string | undefined

  constructor({ trustProxyHeader, ...options }: HttpSourceCounterOptions) {
    this.#counter = new SourceCounter(options)
    this.#trustProxyHeader = trustProxyHeader
  }

  start = (): Promise<void> => this.#counter.start()
  flush = (): Promise<void> => this.#counter.flush()
  stop = (): Promise<void> => this.#counter.stop()

  countVisit(c: Context, status: number): void {
    this.#counter.countVisit(this.#hit(c), status)
  }

  /** Before a signup's insert: the source it will count under (and be stored with). */
  sourceOfSignup(c: Context, door: SignupDoor): SourceKey {
    return this.#counter.sourceOfSignup(this.#hit(c), door)
  }

  /** After the insert committed: `rows` signups under the source sourceOfSignup gave. */
  countSignup(source: SourceKey, rows = 1): void {
    this.#counter.countSignup(source, rows)
  }

  rememberMcpClient(c: Context, params: unknown): void {
    this.#counter.rememberMcpClient(this.#hit(c), params)
  }

  #hit(c: Context): Hit {
    return { request: c.req.raw, address: () => rateLimitKey(clientAddress(c, this.#trustProxyHeader)) }
  }
}
