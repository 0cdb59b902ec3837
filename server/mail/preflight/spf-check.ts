import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { spf } from 'mailauth/lib/spf'
import { getAlignment } from 'mailauth/lib/tools'
import { type DnsReader, silence } from './dns-reader'
import { type CheckLine, line } from './preflight-lines'

/** RFC 7208 §4.6.4: past this many DNS-querying terms a receiver answers permerror. */
export const SPF_LOOKUP_LIMIT = 10

/** Where the relay is, as far as SMTP_URL tells it. */
export interface Relay {
  host: string
  loopback: boolean
}

const isSpf = (record: string) => /^v=spf1(\s|$)/i.test(record)

/** What walking the record found: its lookups counted, the includes named, what was wrong. */
interface Walk {
  lookups: number
  includes: string[]
  problems: string[]
  unanswered?: string
  seen: Set<string>
}

// Terms whose evaluation asks DNS (RFC 7208 §4.6.4); include and redirect also bring a record.
const QUERYING = new Set(['a', 'mx', 'ptr', 'exists'])

/** The term's target domain (`include:x`, `redirect=x`), or undefined where a macro makes it unknowable. */
function targetOf(term: string): string | undefined {
  const target = term.slice(term.search(/[:=]/) + 1).toLowerCase()
  return target.includes('%') ? undefined : target
}

/**
 * Counts the DNS lookups a receiver makes evaluating `record`, following include: and redirect=
 * into the records they name. Walking stops well past the limit (a loop, or a record too big to
 * matter) so a bad record cannot keep the check busy.
 */
async function walk(dns: DnsReader, record: string, found: Walk): Promise<void> {
  for (const term of record.split(/\s+/).slice(1)) {
    const bare = term.replace(/^[+?~-]/, '').toLowerCase()
    const name = bare.split(/[:=/]/)[0] ?? ''
    if (QUERYING.has(name)) found.lookups++
    if (name !== 'include' && name !== 'redirect') continue
    found.lookups++
    const target = targetOf(bare)
    if (!target || found.seen.has(target) || found.lookups > 3 * SPF_LOOKUP_LIMIT) continue
    found.seen.add(target)
    found.includes.push(target)
    const answer = await dns.txt(target)
    if ('unanswered' in answer) {
      found.unanswered = silence(target, answer.unanswered)
      return
    }
    const inner = 'records' in answer ? answer.records.filter(isSpf) : []
    if (inner.length !== 1)
      found.problems.push(`${target} (${name}) has ${inner.length} SPF records, not one`)
    else await walk(dns, inner[0] as string, found)
  }
}

/** What to publish for the relay, as far as it can be known. */
function suggestion(domain: string, relay: Relay): string {
  const family = isIP(relay.host)
  const mechanism =
    family === 4 && !relay.loopback ? `ip4:${relay.host}` : family === 6 ? `ip6:${relay.host}` : ''
  return `TXT ${domain} "v=spf1 ${mechanism || 'include:<the SPF domain your provider names>'} ~all"`
}

/**
 * SPF at the bounce domain (the envelope sender's, which SPF and DMARC's SPF alignment read):
 * present, one record, within the lookup limit, and covering the relay where that can be known.
 */
export async function checkSpf(dns: DnsReader, domain: string, relay: Relay): Promise<CheckLine[]> {
  const answer = await dns.txt(domain)
  if ('unanswered' in answer) return [line('SPF', 'unchecked', silence(domain, answer.unanswered))]
  const records = 'records' in answer ? answer.records.filter(isSpf) : []
  const [record] = records
  if (!record)
    return [line('SPF', 'fail', `no SPF record at ${domain}`, { publish: suggestion(domain, relay) })]
  const read = records.join(' | ')
  if (records.length > 1)
    return [
      line('SPF', 'fail', `${records.length} SPF records at ${domain}: receivers answer permerror`, {
        read,
        publish: `one TXT record at ${domain} that merges them`,
      }),
    ]
  const found: Walk = { lookups: 0, includes: [], problems: [], seen: new Set([domain]) }
  await walk(dns, record, found)
  if (found.unanswered) return [line('SPF', 'unchecked', found.unanswered, { read })]
  if (found.lookups > SPF_LOOKUP_LIMIT)
    return [
      line(
        'SPF',
        'fail',
        `needs ${found.lookups} DNS lookups, past the ${SPF_LOOKUP_LIMIT} RFC 7208 §4.6.4 allows`,
        {
          read,
          publish: `a record at ${domain} of at most ${SPF_LOOKUP_LIMIT} lookups: drop includes no longer used, or name their ip4:/ip6: ranges`,
        },
      ),
    ]
  const counted = `one record, ${found.lookups} of ${SPF_LOOKUP_LIMIT} lookups`
  if (found.problems.length > 0)
    return [line('SPF', 'fail', `${counted}; ${found.problems.join('; ')}`, { read })]
  return [await coverage(dns, { domain, record: read, counted, includes: found.includes }, relay)]
}

interface Read {
  domain: string
  record: string
  counted: string
  includes: string[]
}

/** Whether SPF lets `ip` send for the domain, as a receiver's evaluation (mailauth's) answers. */
async function allows(dns: DnsReader, domain: string, ip: string): Promise<boolean> {
  const result = await spf({ sender: `postmaster@${domain}`, ip, helo: domain, resolver: dns.resolve })
  return result.status.result === 'pass'
}

/** This host's own addresses, for a relay on loopback: the ones it sends from. */
function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((address) => !address.internal && !address.address.startsWith('fe80:'))
    .map((address) => address.address)
}

/**
 * The relay covered: named by IP, that address must pass; on this host, one of the host's own;
 * named by a host, an include at the relay's own organizational domain (the provider's), or the
 * relay's own address passing. What cannot be known is a warning, never a failure.
 */
async function coverage(dns: DnsReader, read: Read, relay: Relay): Promise<CheckLine> {
  const { domain, record, counted } = read
  const pass = (how: string) => line('SPF', 'pass', `${counted}, ${how}`, { read: record })
  if (isIP(relay.host) && !relay.loopback) {
    if (await allows(dns, domain, relay.host)) return pass(`covers the relay ${relay.host}`)
    return line('SPF', 'fail', `${counted}, but does not cover the relay ${relay.host}`, {
      read: record,
      publish: `add ip${isIP(relay.host)}:${relay.host} to the record at ${domain}`,
    })
  }
  if (relay.loopback) {
    for (const ip of ownAddresses())
      if (await allows(dns, domain, ip)) return pass(`covers this host's ${ip}`)
    return line('SPF', 'warn', `${counted}; the relay is on this host, and no address of this host passes`, {
      read: record,
      publish: "this host's public address as ip4:/ip6: (unless the local relay sends on through a provider)",
    })
  }
  const provider = getAlignment(relay.host, read.includes, false)
  if (provider) return pass(`includes ${provider.domain}, the relay's provider`)
  const addresses = await dns.addresses(relay.host)
  const ips = 'records' in addresses ? addresses.records : []
  for (const ip of ips)
    if (await allows(dns, domain, ip)) return pass(`covers the relay ${relay.host} (${ip})`)
  return line('SPF', 'warn', `${counted}; cannot tell whether it covers the relay ${relay.host}`, {
    read: record,
    publish: `the include: your provider documents for ${relay.host}, if it is not there`,
  })
}
