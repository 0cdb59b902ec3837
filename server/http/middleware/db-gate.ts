import type { Context, MiddlewareHandler } from 'hono'

/** The gate's middleware, and what /healthz asks of it. */
export type DbGate = MiddlewareHandler & { inFlight(): number; full(): boolean }

/**
 * A cap on requests in flight towards the database (queued for a connection, or running). The
 * Postgres pool has a few connections, so a flood would otherwise pile up in memory; past the cap
 * the answer is an immediate 503 with Retry-After. Routes read their body before this gate
 * (read-body.ts): a slot is held only while the database has work to do.
 */
export function dbGate(maxInFlight: number, onFull: (c: Context) => Response): DbGate {
  let inFlight = 0
  const middleware: MiddlewareHandler = async (c, next) => {
    if (c.req.method === 'OPTIONS') return next()
    if (inFlight >= maxInFlight) return onFull(c)
    inFlight++
    try {
      await next()
    } finally {
      inFlight--
    }
  }
  return Object.assign(middleware, { inFlight: () => inFlight, full: () => inFlight >= maxInFlight })
}
