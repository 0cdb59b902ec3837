import type { Context, MiddlewareHandler } from 'hono'
import { signInAddress, studioReturn } from '../../contract/studio-return'
import { mayAct } from '../../contract/team-roles'
import type { Actor } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import { clientAddress, networkOf, type SessionMember, SHOWN_NETWORK } from '../../server/admin/sign-in'
import '../studio-server/studio-actor'
import { ENDED_SESSION, NO_SESSION, recordRefusal } from './refused-requests'
import { type RouteNeed, refusalFor } from './studio-routes'

declare module 'hono' {
  interface ContextVariableMap {
    /** The signed-in member (or the local studio's owner), read afresh for this request. */
    member: SessionMember
  }
}

/** Where the team studio is mounted on the site. */
export const MOUNT = '/studio'

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * How a studio's requests carry a session, and whom it signs in: the team's cookie, read against
 * the database (session-cookie.ts), or the local studio's Bearer, kept in its own memory
 * (local-session.ts).
 */
export interface Sessions {
  read(c: Context): string | undefined
  member(token: string | undefined, network: string | undefined): Promise<SessionMember | undefined>
  /** Who the record names for a request of theirs. */
  actor(member: SessionMember, network: string | undefined): Actor
  /** The 401's words: how to get a session again. */
  signedOut: string
}

export interface GuardDeps {
  db: Database
  sessions: Sessions
  /** The role each route needs, from the route table (studio-routes.ts); none, and no one may call it. */
  needOf(method: string, path: string): RouteNeed | undefined
  /** The studio's own origins: every state-changing request must come from one of them. */
  origins: () => readonly string[]
  trustProxyHeader?: string
  /** The page's built files: they hold no data and load for anyone. */
  isFile(path: string): boolean
  /** The page's own paths, each serving the page (auth-routes.ts). */
  pages: readonly string[]
  /**
   * Where a visitor with no session is sent from a page, and the pages open to them (the team's
   * sign-in and enrolment). Absent on the local studio: its session is no cookie that a page load
   * carries, so its page opens to anyone and its API asks for the session.
   */
  signIn?: { path: string; open: ReadonlySet<string> }
  /** The local studio: the only Host values it answers (DNS rebinding); absent, any. */
  hosts?: () => readonly string[]
}

/** The client's network, as the logs show it: what the record keeps of where a request came from. */
export const networkOfRequest = (c: Context, trustProxyHeader: string | undefined) =>
  networkOf(clientAddress(c, trustProxyHeader), SHOWN_NETWORK)

/**
 * A request no page of the studio's own sent: a browser's Sec-Fetch-Site naming another site (on
 * any request), or a state-changing request whose Origin is another's, or that has neither its
 * own Origin nor Sec-Fetch-Site: same-origin. Browsers set both headers; no page can forge them.
 */
export function crossOrigin(c: Context, origins: readonly string[]): boolean {
  const site = c.req.header('sec-fetch-site')
  if (site !== undefined && site !== 'same-origin') return true
  if (READS.has(c.req.method)) return false
  const origin = c.req.header('origin')
  return origin === undefined ? site !== 'same-origin' : !origins.includes(origin)
}

export const CROSS_ORIGIN =
  'Refused: the studio answers only its own pages, and takes changes only from its own pages ' +
  "(this request's Sec-Fetch-Site or Origin names another site, or none)."

/**
 * The studio's one guard, before every route, for the team studio at /studio and the local studio
 * alike (ADR 099, 112): the Host (the local studio's only), the session (read afresh on every
 * request, so a removed member or a changed role counts at once), the Origin, and the role each
 * route needs in the route table, refused with a 403 in the member's words. Every refusal is
 * recorded, folded (refused-requests.ts, ADR 106). It names who asks for the record. The page's
 * files and the sign-in's own routes (auth-routes.ts, which check the Origin themselves) pass.
 */
export function teamGuard(deps: GuardDeps): MiddlewareHandler {
  return async (c, next) => {
    const { path, method } = c.req
    const hosts = deps.hosts?.()
    if (hosts && !hosts.includes(c.req.header('host') ?? ''))
      return c.text(
        `Refused: the waitlist studio answers only requests addressed to ${hosts.join(' or ')}.`,
        403,
      )
    if (path.startsWith('/auth/') || (path !== '/' && deps.isFile(path))) return next()
    const network = networkOfRequest(c, deps.trustProxyHeader)
    const token = deps.sessions.read(c)
    const member = await deps.sessions.member(token, network)
    if (deps.pages.includes(path)) {
      const { signIn } = deps
      // A page opened signed out (a bookmark, its filters in the query) is where the sign-in returns.
      if (signIn && path === signIn.path && member) return c.redirect(studioReturn(c.req.query('next')), 303)
      if (signIn && !member && !signIn.open.has(path))
        return c.redirect(signInAddress(`${MOUNT}${path}${new URL(c.req.url).search}`), 303)
      return next()
    }
    const need = deps.needOf(method, path)
    // Each refusal is recorded (refused-requests.ts), so a probe of the studio's routes leaves a trace.
    const refused = (who: string, why: string) =>
      recordRefusal(deps.db, { who, network, method, path, why, known: need !== undefined })
    if (!member) {
      await refused(token === undefined ? NO_SESSION : ENDED_SESSION, 'signed out')
      return c.json({ error: deps.sessions.signedOut, signedOut: true }, 401)
    }
    if (crossOrigin(c, deps.origins())) {
      await refused(member.email, 'from another origin')
      return c.json({ error: CROSS_ORIGIN }, 403)
    }
    if (!need) return c.json({ error: 'The studio has no such request.' }, 404)
    if (!mayAct(member.role, need.role)) {
      await refused(member.email, `a ${member.role} may not ${need.doing}`)
      return c.json({ error: refusalFor(member.role, need) }, 403)
    }
    c.set('member', member)
    c.set('actor', deps.sessions.actor(member, network))
    return next()
  }
}
