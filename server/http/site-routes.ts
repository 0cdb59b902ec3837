import type { Context, Hono } from 'hono'
import { isSigned, type SignedAgents, withProof } from '../agents/verify-agent'
import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import type { LinkKeys } from '../mail/messages/link-seals'
import { clientAddress } from '../rate-limit/client-address'
import { signupNetwork } from '../rate-limit/client-network'
import { type RateLimitStore, rateLimit, retryAfterHeader } from '../rate-limit/rate-limit'
import type { SignupConsent, SignupDeps } from '../waitlist/signup'
import { AGENT_FILES, agentCors } from './agent-cors'
import { answerPageFor } from './answer-pages'
import { serveHome } from './home-page'
import type { HttpSourceCounter } from './http-source-counter'
import { MAIL_LINK_CSS_PATH } from './mail-links/mail-link-style'
import { mailLinkHandlers } from './mail-links/mail-links-app'
import { ANSWERS_PATH } from './mail-links/questions-form'
import { type DbGate, readBody } from './middleware/request-guards'
import { submitNativeForm } from './native-form'
import { MAX_BODY_BYTES } from './rest/rest-app'
import type { SiteCors } from './site-cors'
import { type StaticSite, serveFile } from './static-site'
import { YOUR_DATA_PATH, yourDataHandlers } from './your-data/your-data-app'

export interface SiteRouteDeps {
  db: Database
  log: Logger
  /** The keys mail links are sealed with. */
  keys: LinkKeys
  signup: SignupDeps
  gate: DbGate
  cors: SiteCors
  rateLimiter?: RateLimitStore
  trustProxyHeader?: string
  /** The built site; absent under `npm run dev`, where Vite serves the pages. */
  site?: StaticSite
  sources?: HttpSourceCounter
  /** WEBMCP_ORIGIN_TRIAL_TOKEN: sent with '/' as an `Origin-Trial` header (ADR 052). */
  webmcpOriginTrialToken?: string
  /** Web Bot Auth, for a signed form POST (a browser agent that signs its requests); absent, none is checked. */
  agents?: SignedAgents
  /** How many days backups may keep an erased entry (the person's page says so); unset without continuous backup. */
  backupDays?: number
}

/**
 * The public site's routes, one row a route, as a reader scans them: the page and its files, the
 * no-script form, the pages mail links open (unsubscribe, confirm, the questions) and the person's
 * own page. Every POST reads its bounded body before it takes a database slot (ADR 024), then goes
 * through the write limit the signup's inserts go through. Any other path is the site's 404.
 */
export function routeSite(app: Hono, deps: SiteRouteDeps): void {
  const { gate } = deps
  const links = mailLinkHandlers(deps)
  const yours = yourDataHandlers(deps)
  const form = nativeForm(deps)

  app.post('/', form.sameSite, form.body, gate, form.limited, form.submit)
  app.get(MAIL_LINK_CSS_PATH, links.css)
  app.get('/unsubscribe', gate, links.unsubscribePage)
  app.post('/unsubscribe', links.body, gate, links.limited, links.unsubscribe)
  app.get('/confirm', gate, links.confirmPage)
  app.post('/confirm', links.body, gate, links.limited, links.confirm)
  app.get(ANSWERS_PATH, links.answersPage)
  app.post(ANSWERS_PATH, links.answersBody, gate, links.limited, links.answer)
  app.get(YOUR_DATA_PATH, gate, yours.page)
  app.get(`${YOUR_DATA_PATH}/download`, gate, yours.download)
  app.post(`${YOUR_DATA_PATH}/erase`, yours.eraseBody, gate, links.limited, yours.erase)
  const { site } = deps
  if (!site) return
  for (const path of AGENT_FILES) app.use(path, agentCors)
  app.on(['GET', 'HEAD'], '*', (c) => pageOrFile(c, site, deps))
  app.options('*', (c) => serveFile(c.req.raw, site.notFound, 404))
  app.all('*', (c) => serveFile(c.req.raw, site.notFound, 404))
}

/** The home page (after a no-script submit, /?waitlist=…, with the outcome's words in it), a file, or the 404. */
function pageOrFile(c: Context, site: StaticSite, deps: SiteRouteDeps): Response {
  if (c.req.path === '/') {
    const answer = site.answers && answerPageFor(site.answers, c.req.query('waitlist'))
    const page = serveHome(c, site, deps.webmcpOriginTrialToken, answer)
    deps.sources?.countVisit(c, page.status)
    return page
  }
  const file = site.files.get(c.req.path)
  if (file) return serveFile(c.req.raw, file)
  return serveFile(c.req.raw, site.notFound, 404)
}

/** The no-script form's consent record: an agent filling it before the page's script ran reads as a person. */
const FORM: SignupConsent = { door: 'form' }
const toPage = (result: string) => `/?waitlist=${result}`

/** The no-script form's steps: another site's form refused, the body read, the write limit, the signup. */
function nativeForm({ cors, rateLimiter, trustProxyHeader, sources, signup, log, agents }: SiteRouteDeps) {
  return {
    // Another site's form posting here would sign its visitors up for whoever it likes (ADR 059).
    sameSite: async (c: Context, next: () => Promise<void>) =>
      cors.writeAllowed(c.req.header('origin')) ? next() : c.redirect(toPage('error'), 303),
    body: readBody(MAX_BODY_BYTES, (c) => c.redirect(toPage('error'), 303)),
    // The no-script form is a write like any other: same limit, and the page shows its Error toast.
    limited: rateLimit(rateLimiter, trustProxyHeader, {
      refuse: (refusal) =>
        new Response(null, {
          status: 303,
          headers: { Location: toPage('error'), ...retryAfterHeader(refusal) },
        }),
    }),
    submit: async (c: Context) => {
      const origin = {
        source: sources?.sourceOfSignup(c, 'form'),
        network: signupNetwork(clientAddress(c, trustProxyHeader)),
        consent: agents && isSigned(c.req.raw.headers) ? await withProof(FORM, c.req.raw, agents) : FORM,
      }
      const result = await submitNativeForm(signup, log, await formOf(c), origin)
      return c.redirect(toPage(result), 303)
    },
  }
}

/** The form's fields, from the body read before the gate (readBody keeps it as text). */
async function formOf(c: Context): Promise<FormData> {
  const type = c.req.header('content-type') ?? ''
  const body = await c.req.text()
  return new Response(body, { headers: { 'Content-Type': type } }).formData().catch(() => new FormData())
}
