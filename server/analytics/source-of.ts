import { createHmac, randomBytes } from 'node:crypto'
import { isbot } from 'isbot'
import { LRUCache } from 'lru-cache'
import { NOT_TEXT } from '../../contract/clean-text'

/**
 * What a hit is and where it came from (after Plausible's ingestion/request.ex and source.ex):
 * which requests are visits, which come from a browser, and the source, medium and campaign a
 * visit or a signup counts under. Plain rules on a request's URL and headers, with the few small
 * caches that spare them work on every load; nothing here is written anywhere.
 */

/** What counting reads of a request's headers: a Fetch Request's, or a view of Node's. */
export type HeaderReader = Pick<Headers, 'get'>

// The no-script form redirects to /?waitlist=<outcome>: the same visit, seen again.
const FORM_OUTCOME = /[?&]waitlist=/

/**
 * Where a person's own pages (confirm, the questions, unsubscribe, your data) link home: the page,
 * but no visit. A person on the list who goes back to the page after confirming was counted when
 * they came; those pages send no Referer (their addresses hold a token), so the link says it itself.
 */
export const OWN_PAGE_HOME = '/?from=own-page'
const FROM_OWN_PAGE = /[?&]from=own-page(?:&|$)/

/**
 * A person's browser loading the page. The server counts `GET /` answered with the page: 200, or
 * 304 when the browser already holds this very page and only checked it (a returning visitor's
 * load; no-cache makes every load ask).
 * Not a visit: HEAD, any other status, a prefetch or prerender (the browser guessing, not a person
 * looking), a bot by its User-Agent (isbot's maintained list), a request with no User-Agent at
 * all (every browser sends one), the page the no-script form lands on after a signup, and the
 * page reached from a person's own pages (OWN_PAGE_HOME).
 */
export function isVisit(method: string, status: number, url: string, headers: HeaderReader): boolean {
  if (method !== 'GET' || (status !== 200 && status !== 304)) return false
  if (isSpeculative(headers)) return false
  if (FORM_OUTCOME.test(url) || FROM_OWN_PAGE.test(url)) return false
  return isBrowser(headers)
}

/**
 * Whether a request comes from a person's browser, by its User-Agent: present, and not a bot,
 * HTTP library or headless browser by isbot's list. A signup from anything else came with no
 * counted page visit (docs/analytics.md).
 */
export function isBrowser(headers: HeaderReader): boolean {
  const userAgent = headers.get('user-agent')
  return userAgent !== null && userAgent !== '' && !isBotCached(userAgent)
}

/** Chromium sends `Sec-Purpose: prefetch` (and `;prerender`), older ones `Purpose: prefetch`, Firefox `X-Moz: prefetch`. */
function isSpeculative(headers: HeaderReader): boolean {
  return (
    headers.get('sec-purpose')?.includes('prefetch') === true ||
    headers.get('purpose')?.includes('prefetch') === true ||
    headers.get('x-moz')?.includes('prefetch') === true
  )
}

/** The visitor asked not to be followed (Global Privacy Control, or the older Do Not Track). */
export function declinesTracking(headers: HeaderReader): boolean {
  return headers.get('sec-gpc') === '1' || headers.get('dnt') === '1'
}

// isbot runs a long regular expression (a few microseconds on an ordinary User-Agent, 150-200 µs on
// a 15 KB one), so it reads only the first MAX_UA_READ characters: a browser's User-Agent is a few
// hundred, and a bot's name comes early. Most loads come from a few browsers' User-Agents, so the
// verdicts are remembered, in this process's memory only, by those characters: at most
// MAX_VERDICTS × MAX_UA_READ characters (1 MB or so) whatever clients send, the least recently
// seen forgotten first (lru-cache: 40 ns a hit, against 30 for a Map forgotten in bulk).
const MAX_VERDICTS = 1000
const MAX_UA_READ = 512
const verdicts = new LRUCache<string, boolean>({ max: MAX_VERDICTS })

function isBotCached(userAgent: string): boolean {
  const read = userAgent.length > MAX_UA_READ ? ownCopy(userAgent.slice(0, MAX_UA_READ)) : userAgent
  const known = verdicts.get(read)
  if (known !== undefined) return known
  const verdict = isbot(read)
  verdicts.set(read, verdict)
  return verdict
}

/**
 * A string of its own. V8 makes a cut of a long string (slice, trim, a match) a view into it, which
 * keeps the whole of it alive: a 100-character source kept from a 16 KB address would hold the
 * 16 KB. What a cache or a counter keeps from a client's input goes through here first, so that
 * what it holds is what it counts. (A copy costs a fraction of a microsecond; only cuts need it.)
 */
export function ownCopy(value: string): string {
  return Buffer.from(value, 'utf16le').toString('utf16le')
}

/**
 * Where a visit or a signup came from: the page's `utm_source` (else `ref`, `via` or `source`),
 * lowercased, else the referring site's host without `www.`, else `direct`. `utm_medium` and
 * `utm_campaign` are kept beside it.
 */
export interface SourceKey {
  source: string
  medium: string
  campaign: string
}

/** The longest source, medium or campaign kept; a longer one is cut (the table's check agrees). */
export const MAX_TAG_LENGTH = 100

export const DIRECT: SourceKey = { source: 'direct', medium: '', campaign: '' }

/** Signups that came with no counted page visit: API calls, scripts, headless browsers (not MCP: `mcp`). */
export const NO_VISIT: SourceKey = { source: '(api)', medium: '', campaign: '' }

/** Signups by agents through the MCP tool; the medium is the client's name when known. */
export const MCP_SOURCE = 'mcp'

/**
 * The names of the rows the server makes itself: a link's utm_source or a referring host cannot
 * take them, so that no visitor can add page visits to a row that stands for something else
 * (docs/analytics.md): `(other)` the overflow, `(api)` and `mcp` signups with no page visit.
 */
export const RESERVED_SOURCES: ReadonlySet<string> = new Set(['(other)', NO_VISIT.source, MCP_SOURCE])

// What never reaches a name: what is not text (contract/clean-text.ts: control characters, NUL
// above all, which PostgreSQL's text refuses; format characters, such as U+202E, which could make
// `moc.rettiwt` print as `twitter.com`; half a surrogate pair), and whatever else Unicode says to
// draw as nothing (Default_Ignorable_Code_Point: fillers, variation selectors), so that `hn`
// followed by an invisible character is `hn`, not a second row that prints alike. Nobody is there
// to be told, so it is removed, where an answer is refused (signup-questions.ts).
const INVISIBLE = new RegExp(`[${NOT_TEXT}\\p{Default_Ignorable_Code_Point}]`, 'gu')

/**
 * A tag as stored: NFKC-normalised (a full-width `ｈｎ` is `hn`), without invisible or
 * direction-control characters, without surrounding spaces, at most MAX_TAG_LENGTH characters.
 */
export function cleanTag(value: string | null | undefined): string {
  if (!value) return ''
  // A cut between the two halves of a surrogate pair would leave half a character: it goes too.
  const tag = value
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .trim()
    .slice(0, MAX_TAG_LENGTH)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trim()
  // Counters and caches keep tags for a day: not the whole address a tag was cut from.
  return tag.length < value.length ? ownCopy(tag) : tag
}

/**
 * A utm_source as stored: a clean tag, lowercased (`HN` and `hn` are one source). Cleaned again
 * after lowercasing, which can lengthen a name (`İ` is two characters lowercased) and after
 * normalising can still hold a capital (`ℌ` is `H`).
 */
export function cleanSource(value: string | null | undefined): string {
  const once = cleanTag(cleanTag(value).toLowerCase())
  const lower = once.toLowerCase()
  return lower === once ? once : cleanTag(lower)
}

/** The query string of a URL, read without parsing the rest (it runs on every page answer). */
export function queryOf(url: string): URLSearchParams | undefined {
  const start = url.indexOf('?')
  if (start < 0) return undefined
  const end = url.indexOf('#', start)
  return new URLSearchParams(end < 0 ? url.slice(start + 1) : url.slice(start + 1, end))
}

/** The host of an http(s) address, lowercased and without `www.`; undefined for anything else. */
export function siteHost(address: string | null | undefined): string | undefined {
  if (!address || !/^https?:\/\//i.test(address)) return undefined
  let host: string
  try {
    host = new URL(address).hostname
  } catch {
    return undefined
  }
  return host === '' ? undefined : host.replace(/^www\./, '')
}

/** A referring site as a source, unless its name is one of the server's own rows. */
function hostSource(host: string): SourceKey {
  const source = cleanSource(host)
  return RESERVED_SOURCES.has(source) ? DIRECT : { source, medium: '', campaign: '' }
}

/**
 * The query parameters that name a source, in the order they are read: `utm_source`, else the
 * shorter `ref`, `via` and `source` many labs post (`/?ref=podcast`), which count alike.
 */
export const SOURCE_PARAMETERS = ['utm_source', 'ref', 'via', 'source'] as const

/** The first source parameter with a name in it, cleaned; '' when none has one. */
function sourceParameter(query: URLSearchParams): string {
  for (const name of SOURCE_PARAMETERS) {
    const source = cleanSource(query.get(name))
    if (source) return source
  }
  return ''
}

function tagged(query: URLSearchParams | undefined): SourceKey | undefined {
  if (!query) return undefined
  const source = sourceParameter(query)
  if (!source || RESERVED_SOURCES.has(source)) return undefined
  return {
    source,
    medium: cleanTag(query.get('utm_medium')),
    campaign: cleanTag(query.get('utm_campaign')),
  }
}

/**
 * A visit's source: its URL's utm_* tags (or ref, via, source), else the Referer's host when that
 * is another site (`isOwnHost` says which hosts are this site's), else direct.
 */
export function visitSource(
  url: string,
  referer: string | undefined,
  isOwnHost: (host: string) => boolean,
): SourceKey {
  const tags = tagged(queryOf(url))
  if (tags) return tags
  const host = siteHost(referer)
  if (host && !isOwnHost(host)) return hostSource(host)
  return DIRECT
}

/**
 * A signup's source, from the page that sent it: the Referer is that page's address, in full for
 * the site's own pages (its Referrer-Policy, strict-origin-when-cross-origin), so its utm_* tags are
 * the visit's. A page of another site posting here is that site; anything else is direct.
 */
export function signupSource(referer: string | undefined, isOwnHost: (host: string) => boolean): SourceKey {
  const host = siteHost(referer)
  if (!referer || !host) return DIRECT
  if (!isOwnHost(host)) return hostSource(host)
  return tagged(queryOf(referer)) ?? DIRECT
}

/**
 * The site's own hosts, so that a Referer from them is not "another site": those of its origins
 * (SITE_URL, the listening address; known once it listens) and the request's own Host.
 */
export class OwnHosts {
  readonly #siteOrigins: () => readonly string[]
  #origins: readonly string[] | undefined
  #hosts = new Set<string>()

  constructor(siteOrigins: () => readonly string[]) {
    this.#siteOrigins = siteOrigins
  }

  /** Whether `host` (lowercased, without www.) is this site, for a request to `requestUrl`. */
  has(host: string, requestUrl: string): boolean {
    const origins = this.#siteOrigins()
    if (origins !== this.#origins) {
      this.#origins = origins
      this.#hosts = new Set(origins.map(siteHost).filter((known) => known !== undefined))
    }
    return this.#hosts.has(host) || siteHost(requestUrl) === host
  }
}

const MAX_MCP_CLIENTS = 1000
const MCP_CLIENT_REMEMBERED_MS = 60 * 60_000

/**
 * The names MCP clients gave in their `initialize` call, so that a later `tools/call` from the same
 * client can be counted under it. The MCP server keeps no session (ADR 049), and a tool call
 * carries no client name, so the two are matched by a keyed hash of the caller's address and
 * User-Agent, in this process's memory only, for an hour, a thousand clients at most. A call that
 * reaches another server than its `initialize` did, or comes after that hour, counts as `mcp` with
 * no client name. The least recently seen client is forgotten first (lru-cache); the hour is read
 * on the callers' clock.
 */
export class McpClients {
  // A key of this process's own: the hashes mean nothing outside it, and nothing here is written.
  readonly #key = randomBytes(32)
  readonly #names = new LRUCache<string, { name: string; at: number }>({ max: MAX_MCP_CLIENTS })

  #caller(address: string, userAgent: string): string {
    return createHmac('sha256', this.#key).update(`${address}\n${userAgent}`).digest('base64url')
  }

  remember(address: string, userAgent: string, name: string, now: number): void {
    this.#names.set(this.#caller(address, userAgent), { name, at: now })
  }

  nameOf(address: string, userAgent: string, now: number): string | undefined {
    const caller = this.#caller(address, userAgent)
    const known = this.#names.get(caller)
    if (!known) return undefined
    if (now - known.at <= MCP_CLIENT_REMEMBERED_MS) return known.name
    this.#names.delete(caller)
    return undefined
  }
}

/** The client's name an MCP `initialize` carries in its params, when it names itself. */
export function mcpClientName(params: unknown): string | undefined {
  const info = (params as { clientInfo?: { name?: unknown } } | undefined)?.clientInfo
  return typeof info?.name === 'string' ? info.name : undefined
}
