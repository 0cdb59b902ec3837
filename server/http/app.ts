import { type Context, type Handler, Hono } from 'hono'
import { MCP_PATH } from '../../contract/agent-tool'
import type { SignedAgents } from '../agents/verify-agent'
import type { ApiKeys } from '../auth/api-keys'
import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import type { MailEventProviders } from '../mail/events/event-settings'
import { linkKeys } from '../mail/messages/link-seals'
import { clientAddress } from '../rate-limit/client-address'
import { signupNetwork } from '../rate-limit/client-network'
import { type RateLimitStore, rateLimit } from '../rate-limit/rate-limit'
import type { AddressPolicy } from '../waitlist/address-policy/address-policy'
import type { HealthCheck } from '../waitlist/apply-mail-event'
import type { DoorWords } from '../waitlist/consent/door-words'
import type { SignupDeps } from '../waitlist/signup'
import type { HttpSourceCounter } from './http-source-counter'
import { createMailEventsApp } from './mail-events-app'
import { createMcpApp } from './mcp/mcp-app'
import { jsonError } from './middleware/json-error'
import { type DbGate, dbGate, urlLengthLimit } from './middleware/request-guards'
import { type SecurityHeaderOptions, securityHeaders } from './middleware/security-headers'
import { unlessServiceRole } from './middleware/unless-service-role'
import { accessLine } from './raw-path'
import { refuseAsPostgrest } from './rest/postgrest-error'
import { createRestApp } from './rest/rest-app'
import { rowsToCharge } from './rest/rest-request'
import type { SchemaCache } from './rest/table-sql'
import { SiteCors } from './site-cors'
import { routeSite } from './site-routes'
import type { StaticSite } from './static-site'
import { WARM_UP_HEADER } from './warm-up'

export interface AppDeps {
  db: Database
  keys: ApiKeys
  schema: SchemaCache
  /** The built site, on every path no other route takes; absent under `npm run dev`, where Vite serves it. */
  site?: StaticSite
  log: Logger
  protections?: AppProtections
  /** The site's own origins, known once it listens: the only pages that may call /mcp. */
  siteOrigins?: () => readonly string[]
  /** The origins the REST API grants CORS: SITE_URL's (or the listening address's) and CORS_ORIGINS. */
  restOrigins?: () => readonly string[]
  /** Visits and signups by source (docs/analytics.md); absent when COUNT_SOURCES is off. */
  sources?: HttpSourceCounter
  /** WEBMCP_ORIGIN_TRIAL_TOKEN: sent with '/' as an `Origin-Trial` header (ADR 052). */
  webmcpOriginTrialToken?: string
  /** The mail providers whose events are read (POST /mail-events/…); the others answer 404. */
  mailEvents?: MailEventProviders
  /** Send health, judged as soon as a provider's event bounced or complained an entry. */
  sendHealth?: HealthCheck
  /** Addresses the public ways in refuse (disposable, blocked, no mail); absent: none refused. */
  addressPolicy?: AddressPolicy
  /** The version of the words each door shows, for the consent record (registered at start-up). */
  consentWords?: DoorWords
  /** Web Bot Auth, checked on every way in for a signed request (SIGNATURE_AGENTS); absent, none is checked. */
  agents?: SignedAgents
  /** Signups are confirmed by mail (CONFIRM_SIGNUPS with SMTP_URL): the agents' tool says so, as the page does. */
  confirmSignups?: boolean
  /**
   * The team studio under /studio, which the assembly mounts (server/boot/team-studio-mount.ts):
   * its answer, or none where there is no team (the site's 404 then answers).
   */
  studio?: (request: Request, env: unknown) => Promise<Response | undefined>
  /** The Content-Security-Policy's allowances and HSTS, for the headers on every answer. */
  security?: SecurityHeaderOptions
  /** The server's start-up (server/http/warm-up.ts): whether it is done, and its requests' token. */
  startUp?: StartUp
  /** How many days backups may keep an erased entry (the person's page says so); unset without continuous backup. */
  backupDays?: number
}

/** What the app knows of the server's warm-up: /healthz waits for it, the access log leaves it out. */
export interface StartUp {
  ready(): boolean
  /** The X-Warm-Up value that marks the warm-up's own requests, known to this process alone. */
  token: string
}

/** The server's guards; tests calling createApp() without them get a generous queue only. */
export interface AppProtections {
  /** Writes per client address; absent means unlimited. */
  rateLimiter?: RateLimitStore
  /** The header naming the client's address (and, with it, X-Forwarded-Proto) is trusted. */
  trustProxyHeader?: string
  /** Most requests in flight towards the database before new ones get 503. */
  dbQueueLimit: number
}

const DEFAULT_PROTECTIONS: AppProtections = { dbQueueLimit: 1000 }
// One array, so SiteCors builds its headers once (it rebuilds them when handed another list).
const NO_ORIGINS: readonly string[] = []

const queueFull = (cors: SiteCors) => (c: Context) =>
  jsonError(503, 'PGRST503', 'The server is busy', 'Try again in a moment', {
    'Retry-After': '1',
    ...cors.headersFor(c.req.header('origin')),
  })

/**
 * The whole HTTP surface, apart from `serve()` so tests can call `app.request()` without a port.
 * It mounts each surface's route table (ADR 112): `/healthz`, REST, MCP, provider events, the
 * team studio, then the public site's table (site-routes.ts), whose catch-all answers the rest.
 */
export function createApp(deps: AppDeps): Hono {
  const { db, log } = deps
  const protections = deps.protections ?? DEFAULT_PROTECTIONS
  const app = new Hono()
  applyAppWide(app, deps)

  const cors = new SiteCors(deps.restOrigins ?? (() => NO_ORIGINS), deps.siteOrigins ?? (() => NO_ORIGINS))
  const gate = dbGate(protections.dbQueueLimit, queueFull(cors))
  const { rateLimiter, trustProxyHeader } = protections
  app.get('/healthz', healthCheck(db, log, gate, deps.startUp))

  // Every route that takes a database slot reads its body first (ADR 024). Without a limiter
  // (RATE_LIMIT_PER_MINUTE=0) the REST app gets no middleware at all: each one is a step per insert.
  const limit = { rows: rowsToCharge, refuse: refuseAsPostgrest }
  const restLimit =
    rateLimiter && unlessServiceRole(deps.keys, rateLimit(rateLimiter, trustProxyHeader, limit))
  // Every door to the list (REST, the no-script form, MCP) hands its rows to the one signup path.
  const { sources } = deps
  const signup: SignupDeps = {
    db,
    policy: deps.addressPolicy,
    signedUp: sources && ((source, rows) => sources.countSignup(source, rows)),
    words: deps.consentWords,
  }
  const sourceOf = sources && ((c: Context) => sources.sourceOfSignup(c, 'rest'))
  const networkOf = (c: Context) => signupNetwork(clientAddress(c, trustProxyHeader))
  app.route(
    '/rest/v1',
    createRestApp({ ...deps, rateLimit: restLimit, gate, signup, sourceOf, networkOf, cors }),
  )
  const allowedOrigins = deps.siteOrigins ?? (() => NO_ORIGINS)
  app.route(
    MCP_PATH,
    createMcpApp({
      ...{ signup, log, allowedOrigins, rateLimiter, trustProxyHeader, gate, sources },
      confirmSignups: deps.confirmSignups,
      agents: deps.agents,
    }),
  )
  const { sendHealth: health } = deps
  const providers = deps.mailEvents ?? {}
  app.route('/mail-events', createMailEventsApp({ db, log, providers, trustProxyHeader, gate, health }))
  const { studio } = deps
  if (studio) app.use('/studio/*', async (c, next) => (await studio(c.req.raw, c.env)) ?? next())
  const keys = linkKeys(deps.keys.secret)
  routeSite(app, { ...deps, keys, signup, gate, cors, rateLimiter, trustProxyHeader, sources })
  return app
}

/**
 * The security headers, the access log, the URL length limit and the last-resort 500, on every
 * answer. The warm-up's own requests are not logged: they are no visitor's.
 */
function applyAppWide(app: Hono, { log, security, startUp }: AppDeps): void {
  app.use(securityHeaders(security))
  app.use(async (c, next) => {
    const started = performance.now()
    await next()
    // Its requests are all answered before it is ready: from then on, no header to read.
    if (startUp && !startUp.ready() && c.req.header(WARM_UP_HEADER) === startUp.token) return
    log.info(accessLine(c.req.method, c.req.url, c.res.status, started))
  })
  app.use(urlLengthLimit(() => jsonError(414, 'PGRST414', 'URI too long')))
  app.onError((error) => {
    log.error('unexpected error:', error)
    return jsonError(500, 'PGRST000', 'Internal server error', 'The error was logged on the server')
  })
}

/**
 * 200 when the database answers; 503 when it does not, while the database queue is full, when
 * every write would be refused: a load balancer then sends signups elsewhere (ADR 025), and until
 * the warm-up is done, so that it sends none to a server still cold (ADR 111).
 */
function healthCheck(db: Database, log: Logger, gate: DbGate, startUp: StartUp | undefined): Handler {
  return async (c) => {
    if (startUp && !startUp.ready()) return c.json({ status: 'starting' }, 503, { 'Retry-After': '1' })
    if (gate.full()) return c.json({ status: 'busy' }, 503, { 'Retry-After': '1' })
    try {
      await db.query('select 1')
      return c.json({ status: 'ok' })
    } catch (error) {
      log.error('health check failed:', error)
      return c.json({ status: 'unavailable' }, 503)
    }
  }
}
