import { Resolver } from 'node:dns/promises'

/** An answer: the records, none (the name or the record does not exist), or no answer at all. */
export type Lookup<T> = { records: T[] } | { missing: true } | { unanswered: string }

// The resolver's words for "no such record" and "no such name": known answers, not silence.
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND'])

/**
 * The preflight's DNS: the servers in DNS_SERVERS (`ip[:port]`), else the system's, with a short
 * time-out, so a resolver that does not answer is a "could not check" line rather than a hung CLI.
 */
export class DnsReader {
  private readonly resolver: Resolver

  constructor(servers: readonly string[], timeoutMs = 2_500) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 1 })
    if (servers.length > 0) this.resolver.setServers([...servers])
  }

  /** TXT records, each one's strings joined as RFC 7208 §3.3 and RFC 6376 §3.6.2.2 read them. */
  txt(name: string): Promise<Lookup<string>> {
    return lookup(this.resolver.resolveTxt(name).then((rows) => rows.map((parts) => parts.join(''))))
  }

  mx(name: string): Promise<Lookup<{ exchange: string; priority: number }>> {
    return lookup(this.resolver.resolveMx(name))
  }

  addresses(name: string): Promise<Lookup<string>> {
    return lookup(
      Promise.allSettled([this.resolver.resolve4(name), this.resolver.resolve6(name)]).then(([v4, v6]) => {
        const found = [v4, v6].flatMap((one) => (one.status === 'fulfilled' ? one.value : []))
        if (found.length > 0) return found
        const reason = [v4, v6].find((one) => one.status === 'rejected')
        if (reason?.status === 'rejected') throw reason.reason
        return []
      }),
    )
  }

  /** As mailauth's evaluators ask: `resolve(name, type)`, Node's own shape. */
  readonly resolve = (name: string, type: string): Promise<unknown> =>
    this.resolver.resolve(name, type as 'TXT')
}

async function lookup<T>(query: Promise<T[]>): Promise<Lookup<T>> {
  try {
    const records = await query
    return records.length > 0 ? { records } : { missing: true }
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? 'EUNKNOWN')
    return NO_RECORD.has(code) ? { missing: true } : { unanswered: code }
  }
}

/** `tag=value; tag=value` (DKIM, DMARC), tag names lower-cased, values trimmed. */
export function tags(record: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const part of record.split(';')) {
    const at = part.indexOf('=')
    if (at > 0) found.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim())
  }
  return found
}

/** A resolver that did not answer, as its line says it. */
export const silence = (name: string, code: string) =>
  `no answer for ${name} (${code}): the resolver${code === 'ETIMEOUT' ? ' timed out' : ' failed'}`
