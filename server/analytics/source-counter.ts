import { hash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import { CountBuffer } from './count-buffer'
import { CountWriter, DailySalt } from './count-writer'
import {
  cleanTag,
  DIRECT,
  declinesTracking,
  type HeaderReader,
  isBrowser,
  isVisit,
  MCP_SOURCE,
  McpClients,
  mcpClientName,
  NO_VISIT,
  OwnHosts,
  type SourceKey,
  signupSource,
  visitSource,
} from './source-of'
import { utcDay } from './utc-day'

/** Distinct sources (with media and campaigns) one day keeps; past it, the heaviest (count-buffer.ts). */
export const MAX_KEYS_PER_DAY = 200

/** What counting reads of one request: the request, and the client's address (read when needed). */
export interface Hit {
  request: { method: string; url: string; headers: HeaderReader }
  address: () => string
}

/**
 * The doors a signup comes in by: the page's REST insert and the no-script form name their source
 * by the page that sent them (its Referer), the MCP tool by the agent's client.
 */
export type SignupDoor = 'rest' | 'form' | 'mcp'

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

  /** The page's answer to a request: a visit when it is one (isVisit in source-of.ts). */
  countVisit(hit: Hit, status: number): void {
    this.#safely(() => this.#countVisit(hit, status), undefined)
  }

  /**
   * The source the report will count a signup under, worked out before its insert: the page's
   * `utm_source`, another site's host or `direct` for a browser's signup, `(api)` for anything
   * else at the REST door or the form, `mcp` (medium the client's name) at the MCP door. Pass it
   * to countSignup once the insert has committed, so that the name is derived once.
   */
  sourceOfSignup(hit: Hit, door: SignupDoor): SourceKey {
    return this.#safely(() => (door === 'mcp' ? this.#mcpSource(hit) : this.#pageSource(hit)), DIRECT)
  }

  /** `rows` new entries, stored, under the source sourceOfSignup gave before their insert. */
  countSignup(source: SourceKey, rows = 1): void {
    if (rows <= 0) return
    this.#safely(() => this.#buffer.addSignups(utcDay(this.#now()), source, rows), undefined)
  }

  /** An MCP `initialize`: its client's name, for the tool call that may follow (McpClients). */
  rememberMcpClient(hit: Hit, params: unknown): void {
    this.#safely(() => this.#rememberMcpClient(hit, params), undefined)
  }

  /**
   * Counting never costs an answer: the page is served and a committed signup acknowledged even if
   * counting fails (which is logged, once per process); a source that cannot be worked out is
   * `fallback`.
   */
  #safely<T>(count: () => T, fallback: T): T {
    try {
      return count()
    } catch (error) {
      if (!this.#failed)
        this.#options.log.error('Counting by source failed (the request was answered):', error)
      this.#failed = true
      return fallback
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

  #pageSource(hit: Hit): SourceKey {
    const { url, headers } = hit.request
    // A script, an HTTP library or a headless browser: its page visit, if any, was not counted, so
    // its signups have a row of their own rather than raising a page source's conversion.
    if (!isBrowser(headers)) return NO_VISIT
    const referer = headers.get('referer') ?? undefined
    return this.#recentSignups.of(url, referer, () =>
      signupSource(referer, (host) => this.#ownHosts.has(host, url)),
    )
  }

  #mcpSource(hit: Hit): SourceKey {
    const userAgent = hit.request.headers.get('user-agent') ?? ''
    const name = this.#mcpClients.nameOf(hit.address(), userAgent, this.#now())
    return { source: MCP_SOURCE, medium: name ?? '', campaign: '' }
  }

  #rememberMcpClient(hit: Hit, params: unknown): void {
    const headers = hit.request.headers
    const name = cleanTag(mcpClientName(params))
    if (!name || declinesTracking(headers)) return
    this.#mcpClients.remember(hit.address(), headers.get('user-agent') ?? '', name, this.#now())
  }

  #visitorBit(hit: Hit, day: string): number | undefined {
    const headers = hit.request.headers
    if (declinesTracking(headers)) return undefined
    const salt = this.#salt.saltFor(day)
    if (!salt) return undefined
    const address = hit.address()
    const userAgent = headers.get('user-agent') ?? ''
    return visitorBit(salt, day, address, userAgent)
  }
}

/**
 * Where one visitor marks the day's sketch (VISITOR_BITS bits): a keyed hash (SHA-256 of the day's
 * secret random salt, the day, their address as the rate limiter sees it and their User-Agent),
 * cut to 16 bits. The same visitor lands on the same bit all day on every server sharing the salt;
 * once the salt is deleted nobody can say whose bit is whose, not even with the address in hand.
 * The salt comes first and is secret, so the hash cannot be recomputed without it (one call to
 * Node's one-shot hash: about a microsecond, against several for an HMAC object per request).
 * Nothing remembers a visitor between loads: a cache of recent visitors must be keyed by a digest of
 * the User-Agent, not by its unbounded self (ADR 024), and that digest cost the same hash it saved.
 */
export function visitorBit(saltHex: string, day: string, address: string, userAgent: string): number {
  return hash('sha256', `${saltHex}\n${day}\n${address}\n${userAgent}`, 'buffer').readUInt16BE(0)
}

const MAX_RECENT_SOURCES = 1000
const MAX_RECENT_LENGTH = 512

/**
 * The sources of recent page addresses and Referers: most loads repeat a few links (the launch post,
 * a newsletter's), and reading a query string and a Referer takes a microsecond or two on every
 * load. In this process's memory only; short inputs only; the least recently seen forgotten first
 * (lru-cache).
 */
export class RecentSources {
  readonly #known = new LRUCache<string, SourceKey>({ max: MAX_RECENT_SOURCES })

  of(url: string, referer: string | undefined, resolve: () => SourceKey): SourceKey {
    const name = referer === undefined ? url : `${url}\n${referer}`
    const known = this.#known.get(name)
    if (known) return known
    const key = resolve()
    if (name.length > MAX_RECENT_LENGTH) return key
    this.#known.set(name, key)
    return key
  }
}
