import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit as streamedBodyLimit } from 'hono/body-limit'

/**
 * Refuses request bodies over `maxBytes`. Hono's own bodyLimit first reads `request.body`, which
 * makes @hono/node-server build a full Fetch Request (stream, AbortSignal) for every request and
 * later read the body the slow way. Here a body that declares its length is judged by its
 * Content-Length header alone (Node stops reading at that length), a request with neither
 * Content-Length nor Transfer-Encoding has no body, and only a chunked body is counted as it
 * streams in, by Hono's middleware.
 */
export function bodyLimit(
  maxBytes: number,
  onTooLarge: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const streamed = streamedBodyLimit({ maxSize: maxBytes, onError: onTooLarge })
  return async (c, next) => {
    if (c.req.header('transfer-encoding') !== undefined) return streamed(c, next)
    const length = c.req.header('content-length')
    if (length !== undefined && Number(length) > maxBytes) return onTooLarge(c)
    return next()
  }
}
