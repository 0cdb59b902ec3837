import type { Context, Handler, MiddlewareHandler } from 'hono'
import { recordAudit } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import {
  addPasskey,
  endSession,
  type RateLimitStore,
  type RelyingParty,
  rateLimit,
  registrationOptions,
  retryAfterHeader,
  type SignInFrom,
  sessionDevice,
  signIn,
  signInOptions,
  startSession,
} from '../../server/admin/sign-in'
import { enrolling, spendEnrolment } from '../../server/admin/team'
import type { StudioRoute } from '../studio-server/studio-app'
import type { StudioFile } from '../studio-server/studio-files'
import type { LocalSessions } from './local-session'
import type { SessionCookie } from './session-cookie'
import { CROSS_ORIGIN, crossOrigin, networkOfRequest } from './team-guard'

export interface AuthDeps {
  db: Database
  cookie: SessionCookie
  relyingParty: () => RelyingParty
  rateLimiter?: RateLimitStore
  trustProxyHeader?: string
}

const LINK_GONE =
  'This enrolment link has been used, is past its 24 hours, or was replaced by a newer one. ' +
  'Ask an owner for a new link (npm run waitlist -- team link EMAIL).'
const NOT_SIGNED_IN = 'That passkey did not sign you in. Try again, or ask an owner for a new enrolment link.'
const MAX_NAME = 60

/** The JSON body, or undefined: a form on another site cannot send JSON without a preflight. */
async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  if (!c.req.header('content-type')?.startsWith('application/json')) return undefined
  const body = (await c.req.json().catch(() => undefined)) as unknown
  return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined
}

/** A passkey's name as the member typed it, or the one it gets. */
export const passkeyName = (given: unknown, fallback: string) =>
  typeof given === 'string' && given.trim() !== '' ? given.trim().slice(0, MAX_NAME) : fallback

/** The page's paths on the team studio, each serving the page, which shows what the path names. */
export const TEAM_PAGES = ['/', '/sign-in', '/enrol', '/activity', '/settings', '/team', '/passkeys'] as const
/** The pages a visitor who is not signed in may open. */
export const OPEN_PAGES: ReadonlySet<string> = new Set(['/sign-in', '/enrol'])
/** The local studio's pages: the list, the record of who did what, and Settings (the mail's preflight). */
export const LOCAL_PAGES = ['/', '/activity', '/settings'] as const

const route = (method: StudioRoute['method'], path: string, ...handlers: Handler[]): StudioRoute => ({
  method,
  path,
  handlers,
})

/** Each of the page's own paths but '/' (one of its files) serves the page. */
const pageRoutes = (paths: readonly string[], page: StudioFile | undefined): StudioRoute[] =>
  page
    ? paths
        .filter((path) => path !== '/')
        .map((path) =>
          route('GET', path, (c) =>
            c.body(new Uint8Array(page.body), 200, { 'Content-Type': page.contentType }),
          ),
        )
    : []

/**
 * The team studio's sign-in and enrolment, one row a route (ADR 099): each POST checks its Origin,
 * then goes through the site's rate limit (the same store and limit as the signup's writes). A
 * ceremony's answer is a few kilobytes: the studio's app bounds the body (body-limits.ts) before
 * these routes see it. Challenges are single-use and short-lived (challenges.ts); the library checks
 * every ceremony. The one guard (team-guard.ts) lets /auth/* through: these are how a session starts.
 */
export function authRoutes(deps: AuthDeps, page: StudioFile | undefined): StudioRoute[] {
  const { db, cookie } = deps
  const rp = deps.relyingParty
  const sameOrigin: MiddlewareHandler = async (c, next) =>
    crossOrigin(c, [rp().origin]) ? c.json({ error: CROSS_ORIGIN }, 403) : next()
  const limit = rateLimit(deps.rateLimiter, deps.trustProxyHeader, {
    refuse: (refusal, c) =>
      c.json({ error: `${refusal.message}. ${refusal.hint}.` }, 429, retryAfterHeader(refusal)),
  })
  const from = (c: Context): SignInFrom => ({
    network: networkOfRequest(c, deps.trustProxyHeader),
    device: sessionDevice(c.req.header('user-agent')),
  })
  const post = (path: string, handler: Handler) => route('POST', path, sameOrigin, limit, handler)

  return [
    post('/auth/sign-in/options', async (c) => c.json(await signInOptions(db, rp()))),
    post('/auth/sign-in/verify', async (c) => {
      const body = await jsonBody(c)
      const signedIn = await signIn(db, rp(), body?.response, from(c))
      if (!signedIn.ok) return c.json({ error: NOT_SIGNED_IN }, 401)
      cookie.set(c, signedIn.token)
      return c.json({ email: signedIn.member.email, role: signedIn.member.role })
    }),
    post('/auth/enrol/options', async (c) => {
      const member = await enrolling(db, (await jsonBody(c))?.token)
      if (!member) return c.json({ error: LINK_GONE }, 410)
      const options = await registrationOptions(db, rp(), member)
      return c.json({ email: member.email, role: member.role, options })
    }),
    post('/auth/enrol/verify', (c) => enrol(c, deps, from(c))),
    post('/auth/sign-out', async (c) => {
      await endSession(db, cookie.read(c))
      cookie.clear(c)
      return c.json({ signedOut: true })
    }),
    ...pageRoutes(TEAM_PAGES, page),
  ]
}

const LINK_USED =
  'Wrong token, or a link used already: each link opens one session. ' +
  'Open the newest link that `npm run waitlist -- studio` printed.'

/**
 * The local studio's one way in (ADR 112): its page trades the link's token, once, for a session's
 * (local-session.ts), from its own origin only. The one guard checks the Host before this runs.
 */
export function localAuthRoutes(
  sessions: LocalSessions,
  origins: () => readonly string[],
  page: StudioFile | undefined,
): StudioRoute[] {
  return [
    route('POST', '/auth/local', async (c) => {
      if (crossOrigin(c, origins())) return c.json({ error: CROSS_ORIGIN }, 403)
      const session = sessions.open((await jsonBody(c))?.token)
      return session ? c.json({ session }) : c.json({ error: LINK_USED }, 403)
    }),
    ...pageRoutes(LOCAL_PAGES, page),
  ]
}

class LinkUsed extends Error {}

/**
 * The enrolment link's second step: the passkey checked and kept, the link used up, a session
 * started and the enrolment recorded, in one transaction. A second use of the link finds it gone.
 */
async function enrol(c: Context, deps: AuthDeps, from: SignInFrom): Promise<Response> {
  const body = await jsonBody(c)
  const token = body?.token
  const outcome = await deps.db
    .transaction(async (tx) => {
      const member = await enrolling(tx, token)
      if (!member || typeof token !== 'string') return { gone: true as const }
      const name = passkeyName(body?.name, 'Passkey 1')
      const added = await addPasskey(tx, deps.relyingParty(), member, { response: body?.response, name })
      const actor = { name: member.email, network: from.network }
      if (!added.ok) {
        // The challenge is spent; the link stays open for another try.
        await recordAudit(tx, actor, { action: 'enrol failed', detail: added.reason })
        return { failed: true as const }
      }
      // Another tab used the link meanwhile: nothing of this one is kept.
      if (!(await spendEnrolment(tx, token, member.memberId))) throw new LinkUsed()
      const session = await startSession(tx, member.memberId, { ...from, passkeyId: added.id })
      await recordAudit(tx, actor, { action: 'enrol', detail: `passkey "${name}"` })
      return { session, member }
    })
    .catch((error: unknown) => {
      if (error instanceof LinkUsed) return { gone: true as const }
      throw error
    })
  if ('gone' in outcome) return c.json({ error: LINK_GONE }, 410)
  if ('failed' in outcome)
    return c.json({ error: 'The passkey could not be made. Try again from the same link.' }, 400)
  deps.cookie.set(c, outcome.session)
  return c.json({ email: outcome.member.email, role: outcome.member.role })
}
