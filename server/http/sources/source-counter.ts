import type { Context } from 'hono'
import type { Logger } from '../../boot/log'
import type { ApiRole } from '../../db/api-roles'
import type { Database } from '../../db/database'
import { clientAddress, rateLimitKey } from '../middleware/client-address'
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

export interface SourceCounterOptions {
  db: Database
  log: Logger
  /** As the rate limiter: the header naming the client's address, when trusted. */
  trustProxyHeader?: string
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
  countVisit(c: Context, status: number): void {
    this.#safely(() => this.#countVisit(c, status))
  }

  /** `rows` new entries from the page's insert or the no-script form, by the source of the page that sent them. */
  countSignups(c: Context, rows: number): void {
    this.#safely(() => this.#countSignups(c, rows))
  }

  /** A REST insert that succeeded: signups when it added to the waitlist with a public key (not the lab's own service key). */
  countRestInsert(c: Context, table: string, rows: number, role: ApiRole): void {
    if (table === 'waitlist' && role !== 'service_role') this.countSignups(c, rows)
  }

  /** An MCP `initialize`: its client's name, for the tool call that may follow (mcp-clients.ts). */
  rememberMcpClient(c: Context, params: unknown): void {
    this.#safely(() => this.#rememberMcpClient(c, params))
  }

  /** A signup through the MCP tool: source `mcp`, medium the client's name when known. */
  countMcpSignup(c: Context): void {
    this.#safely(() => this.#countMcpSignup(c))
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

  #countVisit(c: Context, status: number): void {
    const { method, url, headers } = c.req.raw
    if (!isVisit(method, status, url, headers)) return
    const day = utcDay(this.#now())
    const referer = headers.get('referer') ?? undefined
    const key = this.#recent.of(url, referer, () =>
      visitSource(url, referer, (host) => this.#ownHosts.has(host, url)),
    )
    this.#buffer.addVisit(day, key, this.#visitorBit(c, day))
  }

  #countSignups(c: Context, rows: number): void {
    if (rows <= 0) return
    const { url, headers } = c.req.raw
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

  #rememberMcpClient(c: Context, params: unknown): void {
    const headers = c.req.raw.headers
    const name = cleanTag(clientName(params))
    if (!name || declinesTracking(headers)) return
    this.#mcpClients.remember(this.#address(c), headers.get('user-agent') ?? '', name, this.#now())
  }

  #countMcpSignup(c: Context): void {
    const now = this.#now()
    const name = this.#mcpClients.nameOf(this.#address(c), c.req.header('user-agent') ?? '', now)
    const key: SourceKey = { source: 'mcp', medium: name ?? '', campaign: '' }
    this.#buffer.addSignups(utcDay(now), key, 1)
  }

  #visitorBit(c: Context, day: string): number | undefined {
    const headers = c.req.raw.headers
    if (declinesTracking(headers)) return undefined
    const salt = this.#salt.saltFor(day)
    if (!salt) return undefined
    const address = this.#address(c)
    const userAgent = headers.get('user-agent') ?? ''
    return this.#recentVisitors.bitOf(day, address, userAgent, this.#now(), () =>
      visitorBit(salt, day, address, userAgent),
    )
  }

  #address(c: Context): string {
    return rateLimitKey(clientAddress(c, this.#options.trustProxyHeader))
  }
}

function clientName(params: unknown): string | undefined {
  const info = (params as { clientInfo?: { name?: unknown } } | undefined)?.clientInfo
  return typeof info?.name === 'string' ? info.name : undefined
}
