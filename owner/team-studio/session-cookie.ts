import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { MAX_DAYS } from '../../server/admin/sign-in'

/**
 * The session's cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it), and on HTTPS `__Host-` prefixed (Secure, Path=/, no Domain: no other host or plain-HTTP page
 * can set or read it). Over plain HTTP (development on localhost) it keeps to /studio. The server
 * ends the session itself after 12 idle hours or 7 days (team-sessions.ts); the browser's copy
 * expires with the longest a session can live.
 */
export interface SessionCookie {
  name: string
  read(c: Context): string | undefined
  set(c: Context, token: string): void
  clear(c: Context): void
}

export function sessionCookie(secure: boolean): SessionCookie {
  const name = secure ? '__Host-studio-session' : 'studio-session'
  const options = {
    httpOnly: true,
    sameSite: 'Strict',
    secure,
    path: secure ? '/' : '/studio',
    ...(secure ? { prefix: 'host' as const } : {}),
  } as const
  const bare = secure ? name.slice('__Host-'.length) : name
  return {
    name,
    read: (c) => (secure ? getCookie(c, bare, 'host') : getCookie(c, name)),
    set: (c, token) => setCookie(c, bare, token, { ...options, maxAge: MAX_DAYS * 24 * 3600 }),
    clear: (c) => {
      deleteCookie(c, bare, options)
    },
  }
}
