import { type CheckLine, line } from './preflight-lines'

/** The message's header block, unfolded, as name (lower case) → values. */
function headersOf(raw: Buffer): Map<string, string[]> {
  const text = raw.toString('latin1')
  const end = text.search(/\r?\n\r?\n/)
  const block = (end < 0 ? text : text.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ')
  const headers = new Map<string, string[]>()
  for (const row of block.split(/\r?\n/)) {
    const colon = row.indexOf(':')
    if (colon <= 0) continue
    const name = row.slice(0, colon).trim().toLowerCase()
    headers.set(name, [...(headers.get(name) ?? []), row.slice(colon + 1).trim()])
  }
  return headers
}

/** The names a DKIM-Signature's h= covers, lower case. */
function signedNames(signature: string): string[] {
  const h = /(?:^|;)\s*h=([^;]*)/i.exec(signature)?.[1] ?? ''
  return h.split(':').map((name) => name.replace(/\s+/g, '').toLowerCase())
}

const LOCAL = /^http:\/\/(localhost|127\.[\d.]+|\[::1\])(:\d+)?(\/|$)/i

/**
 * RFC 8058 one-click unsubscribe, read from the invitation as the transport builds it: both
 * headers, an https List-Unsubscribe, and, when the server signs, both among the signed headers
 * (RFC 8058 §4). SITE_URL, where the links lead, on https; plain http on this machine only warns.
 */
export function checkUnsubscribe(raw: Buffer, siteUrl: string, signs: boolean): CheckLine[] {
  const headers = headersOf(raw)
  const listUnsubscribe = headers.get('list-unsubscribe')?.[0]
  const post = headers.get('list-unsubscribe-post')?.[0]
  const read = `List-Unsubscribe: ${listUnsubscribe ?? '(none)'}; List-Unsubscribe-Post: ${post ?? '(none)'}`
  const lines: CheckLine[] = []
  if (
    !listUnsubscribe ||
    !/<https?:\/\/[^>]+>/.test(listUnsubscribe) ||
    post !== 'List-Unsubscribe=One-Click'
  )
    lines.push(line('one-click unsubscribe', 'fail', 'the invitation lacks RFC 8058’s two headers', { read }))
  else if (signs && !hasBothSigned(headers))
    lines.push(
      line('one-click unsubscribe', 'fail', 'the DKIM signature leaves List-Unsubscribe(-Post) out', {
        read,
      }),
    )
  else lines.push(line('one-click unsubscribe', 'pass', `both headers${signs ? ', signed' : ''}`, { read }))
  lines.push(siteLine(siteUrl))
  return lines
}

function hasBothSigned(headers: Map<string, string[]>): boolean {
  const names = (headers.get('dkim-signature') ?? []).flatMap(signedNames)
  return names.includes('list-unsubscribe') && names.includes('list-unsubscribe-post')
}

function siteLine(siteUrl: string): CheckLine {
  const read = `SITE_URL ${siteUrl}`
  if (siteUrl.startsWith('https://'))
    return line('one-click unsubscribe', 'pass', 'the links are https', { read })
  const publish = "SITE_URL=https://<the site's public address>"
  if (LOCAL.test(siteUrl))
    return line(
      'one-click unsubscribe',
      'warn',
      'the links lead to this machine over http: fine for a trial only',
      {
        read,
        publish,
      },
    )
  return line(
    'one-click unsubscribe',
    'fail',
    'the links are plain http: receivers want https for one-click',
    {
      read,
      publish,
    },
  )
}
