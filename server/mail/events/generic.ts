import { Webhook } from 'standardwebhooks'
import { readBounceReport } from './bounce-report'
import type { MailEvent } from './mail-event'
import { accept, field, jsonOf, type Provider, refuse, signedTime, text } from './provider'

/** The JSON form: {"type":"bounce","email","bounce":"hard"|"soft","reason"} or {"type":"complaint","email"}. */
function fromJson(id: string, payload: unknown): MailEvent[] | undefined {
  const type = text(field(payload, 'type'))
  const email = text(field(payload, 'email'))
  const bounce = text(field(payload, 'bounce'))
  const detail = text(field(payload, 'reason')) || type
  if (!email) return undefined
  if (type === 'complaint') return [{ provider: 'generic', eventId: id, email, type: 'complaint', detail }]
  if (type === 'bounce' && (bounce === 'hard' || bounce === 'soft'))
    return [{ provider: 'generic', eventId: id, email, type: bounce, detail }]
  return undefined
}

/**
 * Anything else that can sign a Standard Webhook (webhook-id, webhook-timestamp, webhook-signature,
 * checked by the standardwebhooks library, timestamp within five minutes): a JSON event, or a
 * bounce message itself, so a self-run Postfix or Exim pipes its bounces here with curl.
 */
export function genericProvider(secret: string): Provider {
  const verifier = new Webhook(secret)
  return async (request) => {
    const id = request.header('webhook-id') ?? ''
    const timestamp = request.header('webhook-timestamp') ?? ''
    // Its library reads the time with parseInt, which takes `1795882580e0` too: read as every provider's.
    const time = signedTime(timestamp, 'Standard Webhooks')
    if (!time.ok) return time
    try {
      verifier.verify(request.body, {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': request.header('webhook-signature') ?? '',
      })
    } catch (error) {
      // verify() parses the body as JSON once the signature matches: a bounce message is not JSON.
      if (!(error instanceof SyntaxError))
        return refuse(401, 'the Standard Webhooks signature does not verify, or its timestamp is too old')
    }
    if (/^\s*\{/.test(request.body.subarray(0, 64).toString('latin1'))) {
      const events = fromJson(id, jsonOf(request.body))
      return events ? accept(events) : refuse(400, 'not a bounce or complaint event (docs/mail-setup.md)')
    }
    const reported = await readBounceReport(request.body)
    if (!reported) return refuse(400, 'the bounce message cannot be read: MIME nested too deep, or malformed')
    return accept(
      reported.map((recipient, index) => ({ provider: 'generic', eventId: `${id}/${index}`, ...recipient })),
    )
  }
}
