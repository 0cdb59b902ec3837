import type { MiddlewareHandler } from 'hono'

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
