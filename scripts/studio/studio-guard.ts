import { createHash, timingSafeEqual } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'

/**
 * The studio's three locks, as Jupyter's notebook server has them: it listens on 127.0.0.1 only
 * (start-studio.ts), it answers only requests addressed to 127.0.0.1:PORT or localhost:PORT (a
 * page on evil.example that re-points its DNS name at 127.0.0.1 still sends Host: evil.example),
 * and nothing comes back without the random token printed in its URL.
 */

function sameToken(given: string, token: string): boolean {
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(given), digest(token))
}

/** The cookie the token moves into after the first visit; per port, as cookies ignore ports. */
export function tokenCookieName(port: number): string {
  return `studio_token_${port}`
}

function refuse(c: Context, status: 401 | 403, message: string) {
  if (c.req.path.startsWith('/api/')) return c.json({ error: message }, status)
  return c.text(message, status)
}

export function studioGuard(options: { token: string; port: () => number }): MiddlewareHandler {
  return async (c, next) => {
    const port = options.port()
    const host = c.req.header('host') ?? ''
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return c.text(
        `Refused: the waitlist studio answers only requests addressed to 127.0.0.1:${port} or localhost:${port}.`,
        403,
      )
    }
    const cookie = tokenCookieName(port)
    const fromUrl = c.req.query('token')
    if (fromUrl !== undefined && c.req.method === 'GET' && c.req.path === '/') {
      if (!sameToken(fromUrl, options.token)) return refuse(c, 403, WRONG_TOKEN)
      // The token leaves the address bar (and the history) for a cookie scripts cannot read and
      // other sites' requests do not carry.
      setCookie(c, cookie, options.token, { httpOnly: true, sameSite: 'Strict', path: '/' })
      return c.redirect('/', 303)
    }
    const bearer = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1]
    const given = bearer ?? getCookie(c, cookie)
    if (given === undefined) return refuse(c, 401, MISSING_TOKEN)
    if (!sameToken(given, options.token)) return refuse(c, 403, WRONG_TOKEN)
    await next()
  }
}

const MISSING_TOKEN =
  'This waitlist studio needs its token: open the URL with ?token=… that `npm run waitlist -- studio` printed.'
const WRONG_TOKEN =
  'Wrong token for this waitlist studio: open the URL that `npm run waitlist -- studio` printed when it started.'
