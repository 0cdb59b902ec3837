import { isbot } from 'isbot'
import { ownCopy } from './own-copy'

// The no-script form redirects to /?waitlist=<outcome>: the same visit, seen again.
const FORM_OUTCOME = /[?&]waitlist=/

/**
 * What a visit is (after Plausible's ingestion/request.ex): a person's browser loading the page.
 * The server counts `GET /` answered with the page: 200, or 304 when the browser already holds this
 * very page and only checked it (a returning visitor's load; no-cache makes every load ask).
 * Not a visit: HEAD, any other status, a prefetch or prerender (the browser guessing, not a person
 * looking), a bot by its User-Agent (isbot's maintained list), a request with no User-Agent at
 * all (every browser sends one), and the page the no-script form lands on after a signup.
 */
export function isVisit(method: string, status: number, url: string, headers: Headers): boolean {
  if (method !== 'GET' || (status !== 200 && status !== 304)) return false
  if (isSpeculative(headers)) return false
  if (FORM_OUTCOME.test(url)) return false
  return isBrowser(headers)
}

/**
 * Whether a request comes from a person's browser, by its User-Agent: present, and not a bot,
 * HTTP library or headless browser by isbot's list. A signup from anything else came with no
 * counted page visit (docs/analytics.md).
 */
export function isBrowser(headers: Headers): boolean {
  const userAgent = headers.get('user-agent')
  return userAgent !== null && userAgent !== '' && !isBotCached(userAgent)
}

/** Chromium sends `Sec-Purpose: prefetch` (and `;prerender`), older ones `Purpose: prefetch`, Firefox `X-Moz: prefetch`. */
function isSpeculative(headers: Headers): boolean {
  return (
    headers.get('sec-purpose')?.includes('prefetch') === true ||
    headers.get('purpose')?.includes('prefetch') === true ||
    headers.get('x-moz')?.includes('prefetch') === true
  )
}

/** The visitor asked not to be followed (Global Privacy Control, or the older Do Not Track). */
export function declinesTracking(headers: Headers): boolean {
  return headers.get('sec-gpc') === '1' || headers.get('dnt') === '1'
}

// isbot runs a long regular expression (a few microseconds on an ordinary User-Agent, 150-200 µs on
// a 15 KB one), so it reads only the first MAX_READ characters: a browser's User-Agent is a few
// hundred, and a bot's name comes early. Most loads come from a few browsers' User-Agents, so the
// verdicts are remembered, in this process's memory only, by those characters: at most
// MAX_REMEMBERED × MAX_READ characters (1 MB or so) whatever clients send, forgotten in bulk.
const MAX_REMEMBERED = 1000
const MAX_READ = 512
const verdicts = new Map<string, boolean>()

function isBotCached(userAgent: string): boolean {
  const read = userAgent.length > MAX_READ ? ownCopy(userAgent.slice(0, MAX_READ)) : userAgent
  const known = verdicts.get(read)
  if (known !== undefined) return known
  const verdict = isbot(read)
  if (verdicts.size >= MAX_REMEMBERED) verdicts.clear()
  verdicts.set(read, verdict)
  return verdict
}
