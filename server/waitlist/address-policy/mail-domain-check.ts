import { Resolver } from 'node:dns/promises'
import { LRUCache } from 'lru-cache'

/** What DNS says of a domain: it can receive mail, it cannot (and why), or no answer in time. */
export type MailDomainVerdict = 'receives' | 'no-host' | 'null-mx' | 'unknown'

export interface MailDomainCheckOptions {
  /** Resolvers as `ip` or `ip:port` (DNS_SERVERS); the system's when empty. */
  servers: readonly string[]
  /** The most a signup waits for DNS; past it the address is accepted. */
  budgetMs?: number
  /** Domains remembered, whatever their verdict; the oldest go first. */
  maxEntries?: number
}

// How long a verdict stands: a domain set up today should not wait a day; an outage not at all.
const KEEP_MS: Record<MailDomainVerdict, number> = {
  receives: 6 * 3_600_000,
  'no-host': 15 * 60_000,
  'null-mx': 15 * 60_000,
  unknown: 30_000,
}

// The resolver's words for "this name has no such record" and "this name does not exist".
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND'])

type Answer<T> = { records: T[] } | { code: string }

async function answer<T>(query: Promise<T[]>): Promise<Answer<T>> {
  try {
    return { records: await query }
  } catch (error) {
    return { code: String((error as { code?: unknown }).code ?? 'EUNKNOWN') }
  }
}

/**
 * Whether a domain can receive mail (CHECK_MAIL_DOMAINS): an MX, or else an A or AAAA record (RFC
 * 5321 §5.1's implicit MX); a lone null MX (RFC 7505, `MX 0 .`) says it accepts none. The three
 * questions go out at once, within a short budget; a resolver that fails or does not answer in time
 * gives `unknown`, and the signup is accepted: a DNS outage must never cost a real signup.
 * Verdicts are kept in a bounded cache (lru-cache: at most maxEntries, each for its verdict's
 * time), and a lookup in flight is shared by whoever asks meanwhile (its fetch).
 */
export class MailDomainCheck {
  private readonly resolver: Resolver
  private readonly budgetMs: number
  private readonly cache: LRUCache<string, MailDomainVerdict>

  constructor(options: MailDomainCheckOptions) {
    this.budgetMs = options.budgetMs ?? 1500
    this.resolver = new Resolver({ timeout: this.budgetMs, tries: 1 })
    if (options.servers.length > 0) this.resolver.setServers([...options.servers])
    this.cache = new LRUCache<string, MailDomainVerdict>({
      max: options.maxEntries ?? 10_000,
      fetchMethod: async (domain, _stale, { options: set }) => {
        const verdict = await this.lookUp(domain)
        set.ttl = KEEP_MS[verdict]
        return verdict
      },
    })
  }

  /** The verdict on `domain` (lower case, valid under the address grammar). */
  async verdict(domain: string): Promise<MailDomainVerdict> {
    return (await this.cache.fetch(domain)) ?? 'unknown'
  }

  private lookUp(domain: string): Promise<MailDomainVerdict> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<MailDomainVerdict>((resolve) => {
      timer = setTimeout(() => resolve('unknown'), this.budgetMs)
      timer.unref()
    })
    return Promise.race([this.ask(domain), late]).finally(() => clearTimeout(timer))
  }

  private async ask(domain: string): Promise<MailDomainVerdict> {
    const [mx, a, aaaa] = await Promise.all([
      answer(this.resolver.resolveMx(domain)),
      answer(this.resolver.resolve4(domain)),
      answer(this.resolver.resolve6(domain)),
    ])
    if ('records' in mx && mx.records.length > 0) {
      const [only] = mx.records
      const nullMx = mx.records.length === 1 && (only?.exchange === '' || only?.exchange === '.')
      return nullMx ? 'null-mx' : 'receives'
    }
    if (('records' in a && a.records.length > 0) || ('records' in aaaa && aaaa.records.length > 0)) {
      return 'receives'
    }
    // Only when every question was answered "no such record" or "no such name" is it known.
    const known = [mx, a, aaaa].every((reply) => ('code' in reply ? NO_RECORD.has(reply.code) : true))
    return known ? 'no-host' : 'unknown'
  }
}
