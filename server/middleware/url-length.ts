import type { MiddlewareHandler } from 'hono'

/** The longest request target accepted; supabase-js's longest filter URLs are far shorter. */
export const MAX_URL_LENGTH = 4096

export function urlLengthLimit(onTooLong: () => Response, max = MAX_URL_LENGTH): MiddlewareHandler {
  return async (c, next) => {
    const { pathname, search } = new URL(c.req.url)
    if (pathname.length + search.length > max) return onTooLong()
    return next()
  }
}
