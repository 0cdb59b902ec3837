import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/** What any route of the studio or the team studio reads of a body, unless LARGER_BODIES names it. */
export const MAX_BODY = 64 * 1024

// 1,000 addresses (MAX_SELECTED in studio-invite-selected.ts and studio-marks.ts) of the longest
// kind, quoted and comma-separated, with room to spare: 64 KiB holds about 250.
const SELECTION = 300 * 1024

/**
 * The routes that need more than MAX_BODY, by `METHOD path` as the route table names them (studio-routes.ts), and why.
 * A route not named here (a new one included) gets MAX_BODY: no route can forget its bound.
 */
export const LARGER_BODIES: Readonly<Record<string, number>> = {
  'POST /api/tag': SELECTION,
  'POST /api/untag': SELECTION,
  'POST /api/invite/selected/preview': SELECTION,
  'POST /api/invite/selected': SELECTION,
  'POST /api/invite/selected/anyway': SELECTION,
}

/** The most a route reads of a body, in bytes. */
export function bodyLimitOf(method: string, path: string): number {
  const key = `${method} ${path}`
  return (Object.hasOwn(LARGER_BODIES, key) ? LARGER_BODIES[key] : undefined) ?? MAX_BODY
}

const kib = (bytes: number) => `${bytes / 1024} KiB`

/**
 * Bounds the body of every request that may carry one, before any route reads it (issue 61: a
 * member's 150 MiB body on a route that read it whole raised the server by 600 MB). One that
 * declares a longer Content-Length is refused unread; a chunked one is read up to the bound and
 * refused past it. Hono's middleware does both: a body within the bound stays buffered for the
 * route. GET and HEAD carry none here (@hono/node-server gives them no body), and skipping them
 * spares the page's reads the Request that looking would build.
 */
export function bodyLimits(): MiddlewareHandler {
  const limits = new Map<number, MiddlewareHandler>()
  const limitOf = (bytes: number) => {
    let limit = limits.get(bytes)
    if (!limit) {
      const error = `That request is too large: the studio reads at most ${kib(bytes)} here.`
      limit = bodyLimit({ maxSize: bytes, onError: (c) => c.json({ error }, 413) })
      limits.set(bytes, limit)
    }
    return limit
  }
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    return limitOf(bodyLimitOf(c.req.method, c.req.path))(c, next)
  }
}
