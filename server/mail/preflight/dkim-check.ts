import type { DkimKey } from '../dkim-signer'
import { type DnsReader, silence, tags } from './dns-reader'
import { type CheckLine, line } from './preflight-lines'

/** The selectors in use: the server's own when it signs, and the provider's named in DKIM_SELECTORS. */
export interface DkimInUse {
  /** MAIL_FROM's domain: where the keys are published, and the signature's `d=`. */
  domain: string
  /** The server's key, when it signs (DKIM_SELECTOR + DKIM_PRIVATE_KEY). */
  own?: DkimKey
  /** DKIM_SELECTORS. */
  provider: readonly string[]
}

/** The selectors the check reads, the server's own first; each once. */
export const selectorsOf = (use: DkimInUse) => [
  ...new Set([...(use.own ? [use.own.selector] : []), ...use.provider]),
]

/** The DKIM record a selector of the server's own should carry. */
const recordFor = (key: DkimKey) =>
  `TXT ${key.selector}._domainkey.${key.domain} "v=DKIM1; k=rsa; p=${key.publicKey}"`

// A TXT record at a `_domainkey` name that is a key: v=DKIM1 (optional, first) or a p= tag.
const isKeyRecord = (record: string) => /^\s*v\s*=\s*DKIM1\s*(;|$)/i.test(record) || tags(record).has('p')

// Shortened for the line: a 2048-bit key's p= is some 400 characters.
const shown = (record: string) => (record.length > 120 ? `${record.slice(0, 117)}…` : record)

/**
 * DKIM: a key published for each selector in use; for the server's own selector, the published key
 * the public half of the one it signs with (else every message fails DKIM at the receiver). With no
 * selector named, nothing can be read: a warning that says how to name them.
 */
export async function checkDkim(dns: DnsReader, use: DkimInUse): Promise<CheckLine[]> {
  const selectors = selectorsOf(use)
  if (selectors.length === 0)
    return [
      line('DKIM', 'warn', 'no selector named, so no key was read', {
        publish: `DKIM_SELECTORS=<the selectors your provider signs ${use.domain} with>, or DKIM_SELECTOR and DKIM_PRIVATE_KEY to sign here`,
      }),
    ]
  return Promise.all(selectors.map((selector) => checkSelector(dns, use, selector)))
}

async function checkSelector(dns: DnsReader, use: DkimInUse, selector: string): Promise<CheckLine> {
  const name = `${selector}._domainkey.${use.domain}`
  const own = use.own?.selector === selector ? use.own : undefined
  const publish = own ? recordFor(own) : `the DKIM record your provider gives for selector ${selector}`
  const answer = await dns.txt(name)
  if ('unanswered' in answer) return line('DKIM', 'unchecked', silence(name, answer.unanswered))
  const records = 'records' in answer ? answer.records.filter(isKeyRecord) : []
  const [record] = records
  if (!record) return line('DKIM', 'fail', `no key published at ${name}`, { publish })
  const read = shown(record)
  if (records.length > 1)
    return line('DKIM', 'fail', `${records.length} key records at ${name}: receivers may read either`, {
      read,
      publish,
    })
  const key = (tags(record).get('p') ?? '').replace(/\s+/g, '')
  if (key === '') return line('DKIM', 'fail', `the key at ${name} is revoked (empty p=)`, { read, publish })
  if (own && key !== own.publicKey)
    return line('DKIM', 'fail', `the key at ${name} is not the key the server signs with`, { read, publish })
  const says = own ? `${name} publishes the key the server signs with` : `${name} publishes a key`
  return line('DKIM', 'pass', says, { read })
}
