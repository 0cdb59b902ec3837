import { EventWebhook, EventWebhookHeader } from '@sendgrid/eventwebhook'
import type { MailEvent, MailEventType } from './mail-event'
import { accept, field, jsonOf, type Provider, refuse, signedTime, text } from './provider'

// Why SendGrid dropped a message, for the reasons about the address; a drop for the message's own
// content or the account's quota says nothing of the address and changes nothing.
const DROPPED = new Map<string, MailEventType>([
  ['Bounced Address', 'hard'],
  ['Invalid', 'hard'],
  ['Spam Reporting Address', 'complaint'],
  ['Unsubscribed Address', 'unsubscribe'],
])

function typeOf(event: string, bounceType: string, reason: string): MailEventType | undefined {
  // A "blocked" bounce is the receiver refusing for now (a block list, a reputation problem).
  if (event === 'bounce') return bounceType === 'blocked' ? 'soft' : 'hard'
  // SendGrid drops a message to an address it suppresses: the bounce, complaint or unsubscribe behind it.
  if (event === 'dropped') return DROPPED.get(reason)
  if (event === 'spamreport') return 'complaint'
  // The recipient unsubscribed through SendGrid's subscription tracking, from all mail or its group.
  if (event === 'unsubscribe' || event === 'group_unsubscribe') return 'unsubscribe'
  if (event === 'delivered') return 'delivered'
  return undefined
}

/**
 * SendGrid signs its event webhook with ECDSA P-256: the signature of timestamp + body, checked by
 * its own library against the verification key, once the timestamp is read as every provider's is
 * (signedTime: 1 to 12 digits, within five minutes).
 */
export function sendgridProvider(key: string): Provider {
  const webhook = new EventWebhook()
  const publicKey = webhook.convertPublicKeyToECDSA(key)
  return async (request) => {
    const timestamp = request.header(EventWebhookHeader.TIMESTAMP()) ?? ''
    const time = signedTime(timestamp, 'SendGrid')
    if (!time.ok) return time
    const signature = request.header(EventWebhookHeader.SIGNATURE()) ?? ''
    let verified = false
    try {
      verified = webhook.verifySignature(publicKey, request.body.toString('utf8'), signature, timestamp)
    } catch {
      verified = false
    }
    if (!verified) return refuse(401, 'the SendGrid signature does not verify')
    const payload = jsonOf(request.body)
    if (!Array.isArray(payload)) return refuse(400, 'a SendGrid event webhook posts a JSON array')
    const events: MailEvent[] = []
    for (const item of payload) {
      const type = typeOf(text(field(item, 'event')), text(field(item, 'type')), text(field(item, 'reason')))
      const email = text(field(item, 'email'))
      if (!type || !email) continue
      events.push({
        provider: 'sendgrid',
        eventId: text(field(item, 'sg_event_id')) || `${text(field(item, 'sg_message_id'))}/${type}`,
        email,
        messageId: text(field(item, 'smtp-id')),
        type,
        detail: text(field(item, 'reason')) || text(field(item, 'event')),
      })
    }
    return accept(events)
  }
}
