import type { MiddlewareHandler } from 'hono'

/** A PostgREST-shaped error answer for the protections that stand in front of the REST app. */
export function jsonError(
  status: number,
  code: string,
  message: string,
  hint: string | null = null,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ code, details: null, hint, message }), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  })
}

/** What every keyed or private answer varies on: the two places a Supabase key travels. */
export const PRIVATE_VARY = 'Authorization, apikey'

/**
 * Marks every answer private: never stored by a cache (a shared one would serve it to the next
 * caller), and varying on the credentials, kept beside any `Vary` the route set (Origin on /mcp).
 * For routes off the hot path; the REST answers carry the same headers from site-cors.ts's SiteCors (with Origin in Vary).
 */
export const noStore: MiddlewareHandler = async (c, next) => {
  await next()
  c.res.headers.set('Cache-Control', 'no-store')
  const vary = c.res.headers.get('Vary')
  c.res.headers.set('Vary', vary ? `${vary}, ${PRIVATE_VARY}` : PRIVATE_VARY)
}
