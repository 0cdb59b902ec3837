import type { Logger } from '../boot/log'
import type { ApiRole } from '../db/api-roles'
import type { Database } from '../db/database'
import { CountBuffer, NO_VISIT } from './count-buffer'
import { CountWriter } from './count-writer'
import { DailySalt } from './daily-salt'
import { McpClients } from './mcp-clients'
import { OwnHosts } from './own-hosts'
import { RecentSources } from './recent-sources'
import { RecentVisitors } from './recent-visitors'
import { cleanTag, type SourceKey, signupSource, visitSource } from './source-of'
import { utcDay } from './utc-day'
import { declinesTracking, isBrowser, isVisit } from './visit-request'
import { visitorBit } from './visitor-bit'

/** Distinct sources (with media and campaigns) one day keeps; past it, the heaviest (count-buffer.ts, counts-sql.ts). */
export const MAX_KEYS_PER_DAY = 200

/** What counting reads of one request: the request, and the client's address (read when needed). */
export interface Hit {
  request: Request
  address: () => string
}

export interface SourceCounterOptions {
  db: Database
  log: Logger
  /** The site's own origins: a Referer from one of them is not another site. */
  siteOrigins: () => readonly string[]
  /** How often the counts are written (the most a crash can lose). */
  flushMs: number
  maxKeysPerDay?: number
  now?: () => number
}

/**
 * Visits, visitors and signups by source, counted on the request path in memory only (no cookie,
 * no script, nothing about anyone written): see docs/analytics.md. The writer takes the counts to
 * the database every few seconds.
 */
export class SourceCounter {
  readonly #buffer: CountBuffer
  readonly #salt = new DailySalt()
  readonly #mcpClients = new McpClients()
  readonly #recent = new RecentSources()
  readonly #recentSignups = new RecentSources()
  readonly #recentVisitors = new RecentVisitors()
  readonly #writer: CountWriter
  readonly #options: SourceCounterOptions
  readonly #now: () => number
  readonly #ownHosts: OwnHosts
  #failed = false

  constructor(options: SourceCounterOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    this.#ownHosts = new OwnHosts(options.siteOrigins)
    const maxKeysPerDay = options.maxKeysPerDay ?? MAX_KEYS_PER_DAY
    this.#buffer = new CountBuffer(maxKeysPerDay)
    const { db, log, flushMs } = options
    const salt = this.#salt
    this.#writer = new CountWriter({
      db,
      log,
      buffer: this.#buffer,
      salt,
      maxKeysPerDay,
      flushMs,
      now: this.#now,
    })
  }

  start = (): Promise<void> => this.#writer.start()
  /** Writes what is counted now (the timer does it every flushMs). */
  flush = (): Promise<void> => this.#writer.tick()
  stop = (): Promise<void> => this.#writer.stop()

  /** The page's answer to a request: a visit when it is one (visit-request.ts). */
  countVisit(hit: Hit, status: number): void {
    this.#safely(() => this.#countVisit(hit, status))
  }

  /** `rows` new entries from the page's insert or the no-script form, by the source of the page that sent them. */
  countSignups(hit: Hit, rows: number): void {
    this.#safely(() => this.#countSignups(hit, rows))
  }

  /** A REST insert that succeeded: signups when it added to the waitlist with a public key (not the lab's own service key). */
  countRestInsert(hit: Hit, table: string, rows: number, role: ApiRole): void {
    if (table === 'waitlist' && role !== 'service_role') this.countSignups(hit, rows)
  }

  /** An MCP `initialize`: its client's name, for the tool call that may follow (mcp-clients.ts). */
  rememberMcpClient(hit: Hit, params: unknown): void {
    this.#safely(() => this.#rememberMcpClient(hit, params))
  }

  /** A signup through the MCP tool: source `mcp`, medium the client's name when known. */
  countMcpSignup(hit: Hit): void {
    this.#safely(() => this.#countMcpSignup(hit))
  }

  /**
   * Counting never costs an answer: the page is served and a committed signup acknowledged even if
   * counting fails (which is logged, once per process).
   */
  #safely(count: () => void): void {
    try {
      count()
    } catch (error) {
      if (this.#failed) return
      this.#failed = true
      this.#options.log.error('Counting by source failed (the request was answered):', error)
    }
  }

  #countVisit(hit: Hit, status: number): void {
    const { method, url, headers } = hit.request
    if (!isVisit(method, status, url, headers)) return
    const day = utcDay(this.#now())
    const referer = headers.get('referer') ?? undefined
    const key = this.#recent.of(url, referer, () =>
      visitSource(url, referer, (host) => this.#ownHosts.has(host, url)),
    )
    this.#buffer.addVisit(day, key, this.#visitorBit(hit, day))
  }

  #countSignups(hit: Hit, rows: number): void {
    if (rows <= 0) return
    const { url, headers } = hit.request
    // A script, an HTTP library or a headless browser: its page visit, if any, was not counted, so
    // its signups have a row of their own rather than raising a page source's conversion.
    if (!isBrowser(headers)) {
      this.#buffer.addSignups(utcDay(this.#now()), NO_VISIT, rows)
      return
    }
    const referer = headers.get('referer') ?? undefined
    const key = this.#recentSignups.of(url, referer, () =>
      signupSource(referer, (host) => this.#ownHosts.has(host, url)),
    )
    this.#buffer.addSignups(utcDay(this.#now()), key, rows)
  }

  #rememberMcpClient(hit: Hit, params: unknown): void {
    const headers = hit.request.headers
    const name = cleanTag(clientName(params))
    if (!name || declinesTracking(headers)) return
    this.#mcpClients.remember(hit.address(), headers.get('user-agent') ?? '', name, this.#now())
  }

  #countMcpSignup(hit: Hit): void {
    const now = this.#now()
    const name = this.#mcpClients.nameOf(hit.address(), hit.request.headers.get('user-agent') ?? '', now)
    const key: SourceKey = { source: 'mcp', medium: name ?? '', campaign: '' }
    this.#buffer.addSignups(utcDay(now), key, 1)
  }

  #visitorBit(hit: Hit, day: string): number | undefined {
    const headers = hit.request.headers
    if (declinesTracking(headers)) return undefined
    const salt = this.#salt.saltFor(day)
    if (!salt) return undefined
    const address = hit.address()
    const userAgent = headers.get('user-agent') ?? ''
    return this.#recentVisitors.bitOf(day, address, userAgent, this.#now(), () =>
      visitorBit(salt, day, address, userAgent),
    )
  }
}

function clientName(params: unknown): string | undefined {
  const info = (params as { clientInfo?: { name?: unknown } } | undefined)?.clientInfo
  return typeof info?.name === 'string' ? info.name : undefined
}
