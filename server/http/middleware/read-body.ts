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
