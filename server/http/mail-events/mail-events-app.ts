import type { Hono, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { Logger } from '../../boot/log'
import type { Database } from '../../db/database'
import { MemoryStore } from '../../rate-limit/memory-store'
import { type Refusal, rateLimit, retryAfterHeader } from '../../rate-limit/rate-limit'
import { applyMailEvent, type EventOutcome } from '../../waitlist/mail-events/apply-mail-event'
import {
  MAIL_EVENT_PROVIDERS,
  type MailEvent,
  type MailEventProvider,
} from '../../waitlist/mail-events/mail-event'
import { jsonError } from '../middleware/json-error'
import type { MailEventProviders } from './mail-events-settings'

export interface MailEventDeps {
  db: Database
  log: Logger
  providers: MailEventProviders
  trustProxyHeader?: string
  gate: MiddlewareHandler
}

// A SendGrid batch, or a bounce with the returned message (Postfix quotes at most 50 kB of it).
export const MAX_EVENT_BODY = 1024 * 1024
// Per client address and server: a provider posts in bursts as a batch bounces; a forger is cut off.
const EVENT_LIMITS = { perMinute: 600, burst: 120 }

const notFound = () => jsonError(404, 'PGRST404', 'Not found')
const tooLarge = () => jsonError(413, 'PGRST413', 'Payload too large', `At most ${MAX_EVENT_BODY} bytes`)
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

/**
 * POST /mail-events/{provider} (ADR 043): the body is read (capped) before anything else, the
 * provider's own file verifies it and maps it to MailEvents, and each is applied in its own
 * transaction. A provider without its setting is 404; a refusal is a 4xx and changes nothing.
 */
export function routeMailEvents(app: Hono, deps: MailEventDeps): void {
  const limited = rateLimit(new MemoryStore(EVENT_LIMITS), deps.trustProxyHeader, { refuse: busy })
  const body = bodyLimit({ maxSize: MAX_EVENT_BODY, onError: tooLarge })
  // Verified before the database gate: a slow body or a certificate fetch holds no database slot.
  const verified = new WeakMap<Request, MailEvent[]>()
  app.post('/mail-events/:provider', limited, body, async (c, next) => {
    const name = c.req.param('provider')
    const provider = isProvider(name) ? deps.providers[name] : undefined
    if (!provider) return notFound()
    let raw: Buffer
    try {
      raw = Buffer.from(await c.req.arrayBuffer())
    } catch {
      return jsonError(408, 'PGRST408', 'Request timeout', 'The request body did not arrive in time')
    }
    const verdict = await provider({ body: raw, header: (header) => c.req.header(header) })
    if (!verdict.ok) {
      deps.log.info(`Mail events from ${name} refused: ${verdict.why}`)
      return jsonError(verdict.status, `PGRST${verdict.status}`, 'Event refused', verdict.why)
    }
    verified.set(c.req.raw, verdict.events)
    return next()
  })
  app.post('/mail-events/:provider', deps.gate, async (c) => {
    const name = c.req.param('provider')
    const events = verified.get(c.req.raw) ?? []
    const outcomes: EventOutcome[] = []
    try {
      for (const event of events) outcomes.push(await applyMailEvent(deps.db, event))
    } catch (error) {
      // The provider retries; the events already applied are remembered, so nothing happens twice.
      deps.log.error(`Mail events from ${name}: the database did not answer`, error)
      return jsonError(503, 'PGRST503', 'The server is busy', 'Try again in a moment', { 'Retry-After': '5' })
    }
    deps.log.info(`Mail events from ${name}: ${summary(outcomes)}`)
    return c.json({ received: events.length })
  })
}
