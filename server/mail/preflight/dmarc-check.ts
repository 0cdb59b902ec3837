import getDmarcRecord from 'mailauth/lib/dmarc/get-dmarc-record'
import { getAlignment } from 'mailauth/lib/tools'
import type { DnsReader } from './dns-reader'
import { type CheckLine, line } from './preflight-lines'

/** The domains DMARC compares: From's, the DKIM signature's `d=` where known, the envelope's (SPF). */
export interface Identifiers {
  from: string
  /** The `d=` of the signature: From's domain when the server signs or reads the provider's keys there. */
  dkim?: string
  /** The bounce domain, which SPF authenticates. */
  spf: string
}

interface DmarcRecord {
  rr: string
  isOrgRecord: boolean
  p?: unknown
  sp?: unknown
  adkim?: unknown
  aspf?: unknown
}

const POLICIES = new Set(['none', 'quarantine', 'reject'])

/** The first DMARC record a receiver would use, or why there is none to read. */
async function readRecord(
  dns: DnsReader,
  domain: string,
): Promise<DmarcRecord | false | { unanswered: string }> {
  try {
    return (await getDmarcRecord(domain, dns.resolve)) as DmarcRecord | false
  } catch (error) {
    return { unanswered: String((error as { code?: unknown }).code ?? 'EUNKNOWN') }
  }
}

/**
 * DMARC at From's domain (else its organizational domain's, RFC 7489 §6.6.3): present, its policy
 * (p=none is the bulk senders' minimum), then the alignment of From with the DKIM `d=` or the SPF
 * domain, relaxed or strict as adkim= and aspf= say.
 */
export async function checkDmarc(dns: DnsReader, ids: Identifiers): Promise<CheckLine[]> {
  const name = `_dmarc.${ids.from}`
  const publish = `TXT ${name} "v=DMARC1; p=none; rua=mailto:dmarc-reports@${ids.from}"`
  const record = await readRecord(dns, ids.from)
  if (record && 'unanswered' in record)
    return [line('DMARC', 'unchecked', `no answer for ${name} (${record.unanswered})`)]
  if (!record) return [line('DMARC', 'fail', `no DMARC record at ${name} (or more than one)`, { publish })]
  const read = record.rr
  const policy = String((record.isOrgRecord && record.sp) || record.p || '').toLowerCase()
  if (!POLICIES.has(policy))
    return [
      line('DMARC', 'fail', `the record's policy "${policy}" is not none, quarantine or reject`, {
        read,
        publish,
      }),
    ]
  const where = record.isOrgRecord ? ' (the organizational domain’s record)' : ''
  const kept = policy === 'none' ? 'p=none: reports only, the bulk senders’ minimum' : `p=${policy}`
  return [line('DMARC', 'pass', `${kept}${where}`, { read }), alignment(ids, record)]
}

const isStrict = (value: unknown) => String(value ?? 'r').toLowerCase() === 's'

/** Aligned: the same domain (strict), or the same organizational domain (relaxed). */
function aligned(from: string, other: string | undefined, strict: boolean): boolean {
  if (!other) return false
  if (strict) return from === other.toLowerCase()
  return getAlignment(from, [other], false) !== false
}

function alignment(ids: Identifiers, record: DmarcRecord): CheckLine {
  const dkimStrict = isStrict(record.adkim)
  const spfStrict = isStrict(record.aspf)
  const mode = (strict: boolean) => (strict ? 'strict' : 'relaxed')
  const byDkim = aligned(ids.from, ids.dkim, dkimStrict)
  const bySpf = aligned(ids.from, ids.spf, spfStrict)
  if (byDkim || bySpf) {
    const how = [
      byDkim ? `DKIM d=${ids.dkim} (${mode(dkimStrict)})` : '',
      bySpf ? `SPF ${ids.spf} (${mode(spfStrict)})` : '',
    ].filter(Boolean)
    return line('DMARC alignment', 'pass', `From ${ids.from} aligns with ${how.join(' and ')}`)
  }
  const dkim = ids.dkim ? `DKIM d=${ids.dkim} (${mode(dkimStrict)})` : 'DKIM (no selector in use known)'
  return line(
    'DMARC alignment',
    'fail',
    `From ${ids.from} aligns with neither ${dkim} nor SPF ${ids.spf} (${mode(spfStrict)}): DMARC fails`,
    {
      read: record.rr,
      publish: `sign with d=${ids.from} (DKIM_SELECTOR and DKIM_PRIVATE_KEY, or the provider's selectors in DKIM_SELECTORS), or a MAIL_RETURN_PATH at ${ids.from}`,
    },
  )
}
