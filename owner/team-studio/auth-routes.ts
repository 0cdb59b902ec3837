import type { Context, Hono, MiddlewareHandler } from 'hono'
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

/**
 * Signing in and enrolling (ADR 099): each POST checks its Origin, then goes through the site's
 * rate limit (the same store and limit as the signup's writes). A ceremony's answer is a few
 * kilobytes: the studio's app bounds the body (body-limits.ts) before these routes see it.
 * Challenges are single-use and short-lived (challenges.ts); the library checks every ceremony.
 */
export function routeAuth(app: Hono, deps: AuthDeps): void {
  const { db, cookie } = deps
  const rp = deps.relyingParty
  const sameOrigin: MiddlewareHandler = async (c, next) =>
    crossOrigin(c, rp().origin) ? c.json({ error: CROSS_ORIGIN }, 403) : next()
  const limit = rateLimit(deps.rateLimiter, deps.trustProxyHeader, {
    refuse: (refusal, c) =>
      c.json({ error: `${refusal.message}. ${refusal.hint}.` }, 429, retryAfterHeader(refusal)),
  })
  app.use('/auth/*', sameOrigin, limit)
  const from = (c: Context): SignInFrom => ({
    network: networkOfRequest(c, deps.trustProxyHeader),
    device: sessionDevice(c.req.header('user-agent')),
  })

  app.post('/auth/sign-in/options', async (c) => c.json(await signInOptions(db, rp())))
  app.post('/auth/sign-in/verify', async (c) => {
    const body = await jsonBody(c)
    const signedIn = await signIn(db, rp(), body?.response, from(c))
    if (!signedIn.ok) return c.json({ error: NOT_SIGNED_IN }, 401)
    cookie.set(c, signedIn.token)
    return c.json({ email: signedIn.member.email, role: signedIn.member.role })
  })

  app.post('/auth/enrol/options', async (c) => {
    const member = await enrolling(db, (await jsonBody(c))?.token)
    if (!member) return c.json({ error: LINK_GONE }, 410)
    const options = await registrationOptions(db, rp(), member)
    return c.json({ email: member.email, role: member.role, options })
  })
  app.post('/auth/enrol/verify', (c) => enrol(c, deps, from(c)))

  app.post('/auth/sign-out', async (c) => {
    await endSession(db, cookie.read(c))
    cookie.clear(c)
    return c.json({ signedOut: true })
  })
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
