import { Hono, type MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import type { MailEventProviders } from '../mail/events/event-settings'
import { MAIL_EVENT_PROVIDERS, type MailEventProvider } from '../mail/events/mail-event'
import { type Provider, type Refusal as ProviderRefusal, refuse, type Verdict } from '../mail/events/provider'
import { MemoryStore } from '../rate-limit/memory-store'
import { type Refusal, rateLimit, retryAfterHeader } from '../rate-limit/rate-limit'
import { applyMailEvents, type EventOutcome, type HealthCheck } from '../waitlist/apply-mail-event'
import { jsonError } from './middleware/json-error'

export interface MailEventDeps {
  db: Database
  log: Logger
  providers: MailEventProviders
  trustProxyHeader?: string
  gate: MiddlewareHandler
  /** Send health, judged as soon as an event bounced or complained an entry. */
  health?: HealthCheck
}

/** What the verifying step hands the applying one: the provider's verdict. */
type VerifiedEnv = { Variables: { verdict: Accepted } }

// The largest body each provider's route reads. SES and Mailgun carry their signature inside the
// body, so theirs is read, and parsed, before anyone is known: sized to their real events. An SNS
// message is at most 256 KB, its SES notification escaped once more inside it; a Mailgun event is a
// few KB. The others are verified from headers or the raw bytes before any parse: a SendGrid batch
// (up to a thousand events), or a bounce with the returned message (Postfix quotes at most 50 kB).
export const MAX_EVENT_BODY: Record<MailEventProvider, number> = {
  ses: 512 * 1024,
  mailgun: 64 * 1024,
  postmark: 1024 * 1024,
  sendgrid: 1024 * 1024,
  resend: 1024 * 1024,
  generic: 1024 * 1024,
}
// Per client address and server: a provider posts in bursts as a batch bounces; a forger is cut off.
const EVENT_LIMITS = { perMinute: 600, burst: 120 }

const notFound = () => jsonError(404, 'PGRST404', 'Not found')
const tooLarge = (bytes: number) => () =>
  jsonError(413, 'PGRST413', 'Payload too large', `At most ${bytes} bytes`)
type Accepted = Extract<Verdict, { ok: true }>

/** A refusal, logged in one line (no address in it) and answered in PostgREST's shape. */
function refused(log: Logger, name: string, refusal: ProviderRefusal): Response {
  log.info(`Mail events from ${name} refused: ${refusal.why}`)
  return jsonError(refusal.status, `PGRST${refusal.status}`, 'Event refused', refusal.why)
}

const busy = (refusal: Refusal) =>
  jsonError(429, 'PGRST429', refusal.message, refusal.hint, retryAfterHeader(refusal))

const isProvider = (name: string): name is MailEventProvider =>
  (MAIL_EVENT_PROVIDERS as readonly string[]).includes(name)

/** What a POST did, counted by outcome, for the log: no address in it. */
function summary(outcomes: EventOutcome[]): string {
  if (outcomes.length === 0) return 'nothing to apply'
  const counts = new Map<EventOutcome, number>()
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
  return [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ')
}

/** The body limit of the provider the path names, or 404 before any byte is read when it has no route. */
function providerBody(providers: MailEventProviders): MiddlewareHandler {
  const limits = new Map(
    MAIL_EVENT_PROVIDERS.map((name) => {
      const maxSize = MAX_EVENT_BODY[name]
      return [name, bodyLimit({ maxSize, onError: tooLarge(maxSize) })] as const
    }),
  )
  return async (c, next) => {
    const name = c.req.param('provider') ?? ''
    const limit = isProvider(name) && providers[name] ? limits.get(name) : undefined
    return limit ? limit(c, next) : notFound()
  }
}

/**
 * POST /mail-events/{provider} (ADR 043), mounted at /mail-events by the app (app.ts): the body is read (capped per provider) before anything
 * else, the provider's own file verifies it and maps it to MailEvents, and each is applied in its
 * own transaction. A provider without its setting is 404; a refusal is a 4xx and changes nothing;
 * an event about an address the lab never mailed is acknowledged and counted as not-listed.
 */
export function createMailEventsApp(deps: MailEventDeps): Hono<VerifiedEnv> {
  const limited = rateLimit(new MemoryStore(EVENT_LIMITS), deps.trustProxyHeader, { refuse: busy })
  // Verified before the database gate: a slow body or a certificate fetch holds no database slot.
  const events = new Hono<VerifiedEnv>()
  events.post('/:provider', limited, providerBody(deps.providers), async (c, next) => {
    const name = c.req.param('provider') as MailEventProvider
    const provider = deps.providers[name] as Provider
    let raw: Buffer
    try {
      raw = Buffer.from(await c.req.arrayBuffer())
    } catch {
      return jsonError(408, 'PGRST408', 'Request timeout', 'The request body did not arrive in time')
    }
    const verdict = await provider({ body: raw, header: (header) => c.req.header(header) })
    if (!verdict.ok) return refused(deps.log, name, verdict)
    c.set('verdict', verdict)
    return next()
  })
  events.post('/:provider', deps.gate, async (c) => {
    const name = c.req.param('provider')
    const { events: verified, token } = c.get('verdict')
    let applied: Awaited<ReturnType<typeof applyMailEvents>>
    try {
      applied = await applyMailEvents(deps.db, verified, token, deps.health)
    } catch (error) {
      // The provider retries; the events already applied are remembered, so nothing happens twice.
      deps.log.error(`Mail events from ${name}: the database did not answer`, error)
      return jsonError(503, 'PGRST503', 'The server is busy', 'Try again in a moment', { 'Retry-After': '5' })
    }
    if (applied === 'replayed')
      return refused(deps.log, name, refuse(401, 'this signature was used before: a replay changes nothing'))
    deps.log.info(`Mail events from ${name}: ${summary(applied)}`)
    return c.json({ received: verified.length })
  })
  return events
}
