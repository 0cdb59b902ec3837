import { type DnsReader, silence } from './dns-reader'
import { type CheckLine, line } from './preflight-lines'

/**
 * MX of the bounce domain: where receivers return what they cannot deliver, and a name many of them
 * check before accepting mail from it. An A record alone is RFC 5321's implicit MX (a warning); a
 * null MX (RFC 7505) or nothing at all fails.
 */
export async function checkMx(dns: DnsReader, domain: string): Promise<CheckLine[]> {
  const publish = `MX ${domain} 10 <the host that receives its bounces (your provider's inbound host)>`
  const answer = await dns.mx(domain)
  if ('unanswered' in answer) return [line('MX', 'unchecked', silence(domain, answer.unanswered))]
  if ('records' in answer) {
    const hosts = [...answer.records].sort((a, b) => a.priority - b.priority)
    const read = hosts.map((mx) => `${mx.priority} ${mx.exchange || '.'}`).join(', ')
    if (hosts.every((mx) => mx.exchange === '' || mx.exchange === '.'))
      return [
        line('MX', 'fail', `${domain} has a null MX: it accepts no mail, bounces included`, {
          read,
          publish,
        }),
      ]
    return [line('MX', 'pass', `${domain} receives mail (bounces come back)`, { read })]
  }
  const addresses = await dns.addresses(domain)
  if ('unanswered' in addresses) return [line('MX', 'unchecked', silence(domain, addresses.unanswered))]
  if ('records' in addresses)
    return [
      line('MX', 'warn', `${domain} has no MX, only an address (the implicit MX)`, {
        read: addresses.records.join(', '),
        publish,
      }),
    ]
  return [line('MX', 'fail', `${domain} has no MX and no address: bounces cannot come back`, { publish })]
}
