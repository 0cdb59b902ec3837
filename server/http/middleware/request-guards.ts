import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit as bufferedBodyLimit } from 'hono/body-limit'
import { jsonError } from './json-error'

const noMore = async () => {}

/**
 * Reads the whole request body, at most `maxBytes`, before the middleware after it runs. Put in
 * front of the database gate, it means a client sending its body slowly holds no database slot,
 * only its own socket, which Node's request timeout then cuts off (node-limits.ts). The text stays
 * in Hono's cache: handlers read it with `c.req.text()`, never `c.req.raw`.
 *
 * A body that declares its length is judged by its Content-Length header first (Node stops
 * reading at that length) and read through @hono/node-server's fast path; a chunked body is
 * counted as it streams in, by Hono's own middleware, which buffers it. A request with neither
 * header has no body. GET and HEAD bodies are never read by any route, so they are not waited for.
 */
export function readBody(
  maxBytes: number,
  onTooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const chunked = bufferedBodyLimit({ maxSize: maxBytes, onError: onTooLarge })
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const streamed = c.req.header('transfer-encoding') !== undefined
    const length = c.req.header('content-length')
    if (!streamed && length === undefined) return next()
    if (!streamed && Number(length) > maxBytes) return onTooLarge(c)
    try {
      if (streamed) {
        const refused = (await chunked(c, noMore)) as Response | undefined
        if (refused) return refused
      }
      await c.req.text()
    } catch {
      // The client went away, or was cut off by the request timeout (its socket is destroyed):
      // nobody reads this answer, but the request settles and the access log says what happened.
      return jsonError(408, 'PGRST408', 'Request timeout', 'The request body did not arrive in time')
    }
    return next()
  }
}

/** The longest request target accepted; supabase-js's longest filter URLs are far shorter. */
export const MAX_URL_LENGTH = 4096

export function urlLengthLimit(onTooLong: () => Response, max = MAX_URL_LENGTH): MiddlewareHandler {
  return async (c, next) => {
    // The request target is what follows the origin in the URL (no URL parse: it runs on every request).
    const url = c.req.url
    const target = url.length - url.indexOf('/', url.indexOf('//') + 2)
    if (target > max) return onTooLong()
    return next()
  }
}

/** The gate's middleware, and what /healthz asks of it. */
export type DbGate = MiddlewareHandler & { inFlight(): number; full(): boolean }

/**
 * A cap on requests in flight towards the database (queued for a connection, or running). The
 * Postgres pool has a few connections, so a flood would otherwise pile up in memory; past the cap
 * the answer is an immediate 503 with Retry-After. Routes read their body before this gate
 * (readBody, above): a slot is held only while the database has work to do.
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
