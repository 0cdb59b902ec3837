import { createHash, timingSafeEqual } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import type { Actor } from '../../server/admin/audit'
import './studio-actor'

/**
 * The studio's locks, as Jupyter's notebook server has them: it listens on 127.0.0.1 only
 * (start-studio.ts), it answers only requests addressed to 127.0.0.1:PORT or localhost:PORT (a
 * page on evil.example that re-points its DNS name at 127.0.0.1 still sends Host: evil.example),
 * and its API gives nothing without the random token printed in its URL.
 *
 * The token travels in the URL's fragment (`/#token=…`), which browsers never send to a server,
 * and the page sends it back as `Authorization: Bearer`. It is never a cookie: cookies ignore
 * ports, so any other program listening on 127.0.0.1 would receive it. The API also wants the
 * browser's `Sec-Fetch-Site: same-origin`, so only the studio's own page (or a tool that says so on
 * purpose) reaches it. The page's files hold no data and load without the token. Whoever holds
 * the token is the person who started it: the record names them `cli:` and their OS user.
 */

function sameToken(given: string, token: string): boolean {
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(given), digest(token))
}

function refuse(c: Context, status: 401 | 403, message: string) {
  return c.json({ error: message }, status)
}

export function studioGuard(options: { token: string; port: () => number; actor: Actor }): MiddlewareHandler {
  return async (c, next) => {
    const port = options.port()
    const host = c.req.header('host') ?? ''
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return c.text(
        `Refused: the waitlist studio answers only requests addressed to 127.0.0.1:${port} or localhost:${port}.`,
        403,
      )
    }
    c.set('actor', options.actor)
    if (!c.req.path.startsWith('/api/')) return next()
    if (c.req.header('sec-fetch-site') !== 'same-origin') return refuse(c, 403, NOT_SAME_ORIGIN)
    const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1]
    if (given === undefined) return refuse(c, 401, MISSING_TOKEN)
    if (!sameToken(given, options.token)) return refuse(c, 403, WRONG_TOKEN)
    await next()
  }
}

const NOT_SAME_ORIGIN =
  "Refused: the waitlist studio's API answers only its own page (a browser's Sec-Fetch-Site: same-origin)."
const MISSING_TOKEN =
  'This waitlist studio needs its token: open the URL with #token=… that `npm run waitlist -- studio` printed.'
const WRONG_TOKEN =
  'Wrong token for this waitlist studio: open the URL that `npm run waitlist -- studio` printed when it started.'
