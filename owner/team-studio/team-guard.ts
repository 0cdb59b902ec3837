import type { Context, MiddlewareHandler } from 'hono'
import { signInAddress, studioReturn } from '../../contract/studio-return'
import { mayAct } from '../../contract/team-roles'
import type { Database } from '../../server/admin/runtime'
import {
  clientAddress,
  networkOf,
  type SessionMember,
  SHOWN_NETWORK,
  sessionMember,
} from '../../server/admin/sign-in'
import { needOf, refusalFor } from '../studio-server/route-needs'
import '../studio-server/studio-actor'
import { ENDED_SESSION, NO_SESSION, recordRefusal } from './refused-requests'
import type { SessionCookie } from './session-cookie'

declare module 'hono' {
  interface ContextVariableMap {
    /** The signed-in member, read afresh from the database for this request. */
    member: SessionMember
  }
}

/** Where the team studio is mounted on the site. */
export const MOUNT = '/studio'

/** The page's own paths: each serves the page, which shows what the path names. */
export const PAGE_PATHS = ['/', '/sign-in', '/enrol', '/activity', '/team', '/passkeys'] as const
/** The pages a visitor who is not signed in may open. */
const OPEN_PAGES = new Set(['/sign-in', '/enrol'])
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface GuardDeps {
  db: Database
  cookie: SessionCookie
  /** The studio's one origin (SITE_URL's): every state-changing request must come from it. */
  origin: () => string
  trustProxyHeader?: string
  /** The page's built files: they hold no data and load for anyone. */
  isFile(path: string): boolean
}

/** The client's network, as the logs show it: what the record keeps of where a request came from. */
export const networkOfRequest = (c: Context, trustProxyHeader: string | undefined) =>
  networkOf(clientAddress(c, trustProxyHeader), SHOWN_NETWORK)

/** A state-changing request from another origin (or none) never reaches a route. */
export const crossOrigin = (c: Context, origin: string) =>
  !READS.has(c.req.method) && c.req.header('origin') !== origin

export const CROSS_ORIGIN =
  "Refused: the team studio takes changes only from its own pages (this request's Origin is another site's, or none)."
const SIGNED_OUT = 'You are signed out (or your session ended): sign in again with your passkey.'

/**
 * The team studio's one guard, before every route (ADR 099): the session (a cookie, read against
 * the database on every request, so a removed member or a changed role counts at once), the Origin
 * of every state-changing request, and the role each route needs (route-needs.ts), refused with a
 * 403 in the member's words. Every refusal is recorded, folded (refused-requests.ts, ADR 106). It
 * names the member for the record. The page's files and the sign-in's own routes (auth-routes.ts,
 * which check the Origin and the rate limit themselves) pass.
 */
export function teamGuard(deps: GuardDeps): MiddlewareHandler {
  return async (c, next) => {
    const { path, method } = c.req
    if (path.startsWith('/auth/') || (path !== '/' && deps.isFile(path))) return next()
    const network = networkOfRequest(c, deps.trustProxyHeader)
    const token = deps.cookie.read(c)
    const member = await sessionMember(deps.db, token, network)
    if ((PAGE_PATHS as readonly string[]).includes(path)) {
      // A page opened signed out (a bookmark, its filters in the query) is where the sign-in returns.
      if (path === '/sign-in' && member) return c.redirect(studioReturn(c.req.query('next')), 303)
      if (!member && !OPEN_PAGES.has(path))
        return c.redirect(signInAddress(`${MOUNT}${path}${new URL(c.req.url).search}`), 303)
      return next()
    }
    // Each refusal is recorded (refused-requests.ts), so a probe of the team's routes leaves a trace.
    const refused = (who: string, why: string) => recordRefusal(deps.db, { who, network, method, path, why })
    if (!member) {
      await refused(token === undefined ? NO_SESSION : ENDED_SESSION, 'signed out')
      return c.json({ error: SIGNED_OUT, signedOut: true }, 401)
    }
    if (crossOrigin(c, deps.origin())) {
      await refused(member.email, 'from another origin')
      return c.json({ error: CROSS_ORIGIN }, 403)
    }
    const need = needOf(method, path)
    if (!need) return c.json({ error: 'The team studio has no such request.' }, 404)
    if (!mayAct(member.role, need.role)) {
      await refused(member.email, `a ${member.role} may not ${need.doing}`)
      return c.json({ error: refusalFor(member.role, need) }, 403)
    }
    c.set('member', member)
    c.set('actor', { name: member.email, network })
    return next()
  }
}
