import type { MiddlewareHandler } from 'hono'

/**
 * A cap on requests in flight towards the database (reading their body, queued, or running).
 * The Postgres pool has a few connections, so a flood would otherwise pile up in memory; past the cap the answer is an immediate 503 with Retry-After.
 */
export function dbGate(
  maxInFlight: number,
  onFull: () => Response,
): MiddlewareHandler & { inFlight(): number } {
  let inFlight = 0
  const middleware: MiddlewareHandler = async (c, next) => {
    if (c.req.method === 'OPTIONS') return next()
    if (inFlight >= maxInFlight) return onFull()
    inFlight++
    try {
      await next()
    } finally {
      inFlight--
    }
  }
  return Object.assign(middleware, { inFlight: () => inFlight })
}
