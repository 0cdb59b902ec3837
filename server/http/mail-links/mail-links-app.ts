import type { Context, Handler, MiddlewareHandler } from 'hono'
import { checkAnswers } from '../../../contract/signup-questions'
import { mailWords } from '../../../contract/site-config'
import type { Logger } from '../../base/log'
import type { Database } from '../../db/database'
import type { LinkKeys } from '../../mail/messages/link-seals'
import { openAddress, sealAddress } from '../../mail/messages/link-seals'
import { escapeHtml } from '../../mail/messages/message-html'
import { readMailSettings } from '../../mail/queue/mail-settings'
import { clientAddress } from '../../rate-limit/client-address'
import { signupNetwork } from '../../rate-limit/client-network'
import { type RateLimitStore, type Refusal, rateLimit, retryAfterHeader } from '../../rate-limit/rate-limit'
import { heldAnswers } from '../../waitlist/entry-answers'
import {
  type AnswerOutcome,
  alreadyUnsubscribed,
  answer,
  confirm,
  isListed,
  type LinkOutcome,
  unsubscribe,
} from '../../waitlist/link-actions'
import { readBody } from '../middleware/request-guards'
import { YOUR_DATA_PATH } from '../your-data/your-data-app'
import { FROM_PAGE, type MailLinkPage, renderMailLinkPage } from './mail-link-page'
import { serveMailLinkCss } from './mail-link-style'
import { ANSWERS_PATH, ASKED, MAX_ANSWERS_BODY } from './questions-form'

export interface MailLinkDeps {
  db: Database
  log: Logger
  keys: LinkKeys
  rateLimiter?: RateLimitStore
  trustProxyHeader?: string
  gate: MiddlewareHandler
}

/** One kind of link: its path, the key its tokens are sealed with, its words and what its POST does. */
interface LinkKind {
  path: '/unsubscribe' | '/confirm'
  key: (keys: LinkKeys) => Buffer
  words: { title: string; line: string; button: string; done: string; doneLine: string }
  /** Its POST's action; `network` is the client's (client-network.ts), for a confirmation's record. */
  act: (db: Database, email: string, network: string | undefined) => Promise<LinkOutcome>
  /** Whether the POST would find its work done already: the GET then says so, with no button. */
  done?: (db: Database, email: string) => Promise<boolean>
  /** Its POST's page goes on to the lab's questions (while signups are confirmed by mail). */
  asks?: boolean
  /** The answer to its page's own button links to the person's own page (yourDataLink). */
  linksYourData?: boolean
}

const UNSUBSCRIBE: LinkKind = {
  path: '/unsubscribe',
  key: (keys) => keys.unsubscribe,
  words: mailWords.pages.unsubscribe,
  act: unsubscribe,
  done: alreadyUnsubscribed,
  linksYourData: true,
}
const CONFIRM: LinkKind = {
  path: '/confirm',
  key: (keys) => keys.confirm,
  words: mailWords.pages.confirm,
  act: confirm,
  asks: true,
}

// A one-click body is 26 bytes; nothing a link's POST needs is larger.
const MAX_LINK_BODY = 1024

const pages = mailWords.pages
const INVALID: MailLinkPage = { status: 400, title: pages.invalid, line: pages.invalidLine }
const GONE: MailLinkPage = { status: 200, title: pages.yourData.notListed, line: pages.gone }
const UNANSWERED: MailLinkPage = { status: 503, title: pages.busy, line: pages.busyLine }
const busy = (refusal: Refusal) => {
  const response = renderMailLinkPage({ status: 429, title: pages.busy, line: pages.busyLine })
  for (const [name, value] of Object.entries(retryAfterHeader(refusal))) response.headers.set(name, value)
  return response
}

function outcomePage(kind: LinkKind, outcome: LinkOutcome): MailLinkPage {
  if (outcome === 'not-listed') return { status: 200, title: kind.words.done, line: pages.gone }
  if (outcome === 'unsubscribed')
    return { status: 200, title: kind.words.title, line: pages.confirm.unsubscribed }
  return { status: 200, title: kind.words.done, line: kind.words.doneLine }
}

/**
 * Whether the confirmation page asks the person's name and the lab's questions: while signups are confirmed by mail, as
 * the database's switch has it (the one the signup trigger reads; every server writes it at start).
 * With confirmation off there is no confirmation to ask after (docs/invitations.md). A database
 * that does not answer here asks nothing: the confirmation itself is done.
 */
async function asking(db: Database): Promise<boolean> {
  return readMailSettings(db).then(
    (settings) => settings.confirmSignups,
    () => false,
  )
}

/**
 * What the link's GET finds: the address gone (erased, removed, expired), its work done already,
 * or still to do. A database that does not answer shows the button.
 */
async function foundAtGet(
  kind: LinkKind,
  deps: MailLinkDeps,
  email: string,
): Promise<'gone' | 'done' | 'to do'> {
  try {
    if (!(await isListed(deps.db, email))) return 'gone'
    return (await kind.done?.(deps.db, email)) ? 'done' : 'to do'
  } catch (error) {
    deps.log.error(`${kind.path}: the database did not answer`, error)
    return 'to do'
  }
}

/**
 * The link to the person's own page (ADR 108), sealed for it: only on the answer to the unsubscribe
 * page's own button. The List-Unsubscribe URL is opened and posted to by mail systems, their
 * unsubscribe services and link scanners, and that key reads and erases.
 */
function yourDataLink(keys: LinkKeys, email: string): string {
  const href = `${YOUR_DATA_PATH}?t=${sealAddress(keys.yourData, email)}`
  return `<p><a class="home" href="${escapeHtml(href)}">${escapeHtml(pages.yourData.link)}</a></p>`
}

/** Whether the POST came from the page's own button (read already, and bounded, by readBody). */
async function fromPage(c: Context): Promise<boolean> {
  const body = await c.req.text().catch(() => '')
  return new URLSearchParams(body).get(FROM_PAGE.name) === FROM_PAGE.value
}

/**
 * The pages mail links open, as handlers the site's route table (server/http/site-routes.ts)
 * mounts. A GET (a person, or a mail system's link scanner) shows one button and changes nothing,
 * or says the unsubscribe is done already; its POST acts. The unsubscribe URL is also
 * List-Unsubscribe's: a mail client's one-click POST (RFC 8058) needs no cookie or login and is
 * answered 200 at once. A token not sealed by this installation gets 400 and changes nothing. No
 * address is logged. Every POST reads its bounded body (`body`) before the database gate, and is
 * limited as the signup's writes are (`limited`).
 */
export function mailLinkHandlers(deps: MailLinkDeps) {
  const limited = rateLimit(deps.rateLimiter, deps.trustProxyHeader, { refuse: busy })
  // Read before the database gate, as every write's body: a slow client holds no database slot.
  const body = readBody(MAX_LINK_BODY, () => renderMailLinkPage({ ...INVALID, status: 413 }))
  // A test send's link (`invite --test`): sealed with the test key, shown as any, acting on nothing.
  const isTest = (c: Context) => openAddress(deps.keys.testLink, c.req.query('t') ?? '') !== undefined
  const emailOf = (kind: LinkKind, c: Context) => openAddress(kind.key(deps.keys), c.req.query('t') ?? '')
  const show =
    (kind: LinkKind): Handler =>
    async (c) => {
      const email = emailOf(kind, c)
      if (!email && !isTest(c)) return renderMailLinkPage(INVALID)
      const found = email ? await foundAtGet(kind, deps, email) : 'to do'
      if (found === 'gone') return renderMailLinkPage(GONE)
      if (found === 'done')
        return renderMailLinkPage({ status: 200, title: kind.words.done, line: kind.words.doneLine })
      const action = `${kind.path}?t=${c.req.query('t')}`
      const form = { action, button: kind.words.button, fromPage: kind.linksYourData }
      return renderMailLinkPage({ status: 200, ...kind.words, form })
    }
  const act =
    (kind: LinkKind): Handler =>
    async (c) => {
      const email = emailOf(kind, c)
      if (!email && isTest(c))
        return renderMailLinkPage({ status: 200, title: kind.words.title, line: pages.test })
      if (!email) return renderMailLinkPage(INVALID)
      try {
        return renderMailLinkPage(await acted(c, kind, deps, email))
      } catch (error) {
        deps.log.error(`${kind.path}: the database did not answer`, error)
        return renderMailLinkPage(UNANSWERED)
      }
    }
  return {
    css: () => serveMailLinkCss(),
    body,
    limited,
    unsubscribePage: show(UNSUBSCRIBE),
    unsubscribe: act(UNSUBSCRIBE),
    confirmPage: show(CONFIRM),
    confirm: act(CONFIRM),
    ...answerHandlers(deps, isTest),
  }
}

/** What the link's POST did, as its page shows it; the confirmation's goes on to the questions. */
async function acted(c: Context, kind: LinkKind, deps: MailLinkDeps, email: string): Promise<MailLinkPage> {
  const network = signupNetwork(clientAddress(c, deps.trustProxyHeader))
  const outcome = await kind.act(deps.db, email, network)
  const page = outcomePage(kind, outcome)
  if (kind.linksYourData && outcome !== 'not-listed' && (await fromPage(c)))
    page.body = yourDataLink(deps.keys, email)
  if (kind.asks && (outcome === 'done' || outcome === 'already') && (await asking(deps.db))) {
    // The person's kept answers, else an agent's proposed ones, for the person to keep,
    // change or clear; none once invited, when they no longer change.
    const held = await heldAnswers(deps.db, email)
    if (held && !held.fixed)
      page.questions = { action: `${ANSWERS_PATH}?t=${c.req.query('t')}`, given: held.given }
  }
  return page
}

/**
 * The confirmation page's questions, answered: only with the confirmation link's own token, read
 * and size-checked before a database slot, limited as the links' POSTs are, and only once that
 * token's confirmation was posted. What is posted is what is kept (ADR 084). A wrong answer shows
 * the form again with the reason (400) and stores nothing; answering again replaces the answers,
 * until the entry is invited. Its GET changes nothing: it leads back to the confirmation link's page.
 */
function answerHandlers(deps: MailLinkDeps, isTest: (c: Context) => boolean) {
  const token = (c: Context) => c.req.query('t') ?? ''
  const emailOf = (c: Context) => openAddress(deps.keys.confirm, token(c))
  return {
    answersBody: readBody(MAX_ANSWERS_BODY, () => renderMailLinkPage({ ...INVALID, status: 413 })),
    answersPage: (c: Context) => {
      if (!emailOf(c) && !isTest(c)) return renderMailLinkPage(INVALID)
      return c.redirect(`/confirm?t=${token(c)}`, 303)
    },
    answer: async (c: Context) => {
      const email = emailOf(c)
      if (!email && isTest(c))
        return renderMailLinkPage({ status: 200, title: answerWords.unchanged, line: pages.test })
      if (!email) return renderMailLinkPage(INVALID)
      const given = await formOf(c)
      const checked = given ? checkAnswers(ASKED, given) : { problem: NOT_A_FORM }
      if ('problem' in checked) {
        const line = `${answerWords.problemLine} ${checked.problem}.`
        const questions = { action: `${ANSWERS_PATH}?t=${token(c)}`, given }
        return renderMailLinkPage({ status: 400, title: answerWords.problem, line, questions })
      }
      try {
        return renderMailLinkPage(answeredPage(await answer(deps.db, email, checked.answers)))
      } catch (error) {
        deps.log.error(`${ANSWERS_PATH}: the database did not answer`, error)
        return renderMailLinkPage(UNANSWERED)
      }
    },
  }
}

const answerWords = pages.answers
const NOT_A_FORM = 'the answers come as a form (application/x-www-form-urlencoded or multipart/form-data)'

/**
 * The form's fields (a repeated one as a list, which the check refuses), or undefined for a body
 * that is not a form.
 */
async function formOf(c: Context): Promise<Record<string, unknown> | undefined> {
  const type = c.req.header('content-type') ?? ''
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined
  try {
    return await c.req.parseBody({ all: true })
  } catch {
    return undefined
  }
}

function answeredPage(outcome: AnswerOutcome): MailLinkPage {
  if (outcome === 'not-listed') return { status: 200, title: answerWords.unchanged, line: pages.gone }
  if (outcome === 'unsubscribed')
    return { status: 200, title: answerWords.unchanged, line: answerWords.unsubscribed }
  // Posted straight to this URL, past the confirmation's button: first things first.
  if (outcome === 'unconfirmed')
    return { status: 409, title: answerWords.unchanged, line: answerWords.unconfirmed }
  if (outcome === 'fixed') return { status: 200, title: answerWords.unchanged, line: answerWords.fixed }
  return { status: 200, title: answerWords.done, line: answerWords.doneLine }
}
