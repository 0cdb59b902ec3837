import { Webhook } from 'standardwebhooks'
import type { MailEvent, MailEventType } from './mail-event'
import { accept, field, jsonOf, type Provider, refuse, signedTime, text } from './provider'

/**
 * Resend's event types we act on; the others (sent, opened, clicked…) change nothing. Resend has no
 * unsubscribe event for mail sent through it: its unsubscribes belong to its own Broadcasts'
 * contacts. It suppresses an address after a hard bounce or a complaint, whose own events come first.
 */
function typeOf(event: string, bounceType: string): MailEventType | undefined {
  if (event === 'email.bounced') return bounceType === 'Permanent' ? 'hard' : 'soft'
  if (event === 'email.complained') return 'complaint'
  if (event === 'email.suppressed') return 'hard'
  if (event === 'email.delivered') return 'delivered'
  return undefined
}

/**
 * Resend signs through Svix: svix-id, svix-timestamp and svix-signature, the scheme Standard
 * Webhooks took over unchanged, so its verifier checks them (and refuses a timestamp more than
 * five minutes off). The svix-id is the event's id.
 */
export function resendProvider(secret: string): Provider {
  const verifier = new Webhook(secret)
  return async (request) => {
    const id = request.header('svix-id') ?? ''
    const timestamp = request.header('svix-timestamp') ?? ''
    // Its library reads the time with parseInt, which takes `1795882580e0` too: read as every provider's.
    const time = signedTime(timestamp, 'Svix')
    if (!time.ok) return time
    try {
      verifier.verify(request.body, {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': request.header('svix-signature') ?? '',
      })
    } catch {
      return refuse(401, 'the Svix signature does not verify, or its timestamp is too old')
    }
    const payload = jsonOf(request.body)
    const type = typeOf(text(field(payload, 'type')), text(field(payload, 'data', 'bounce', 'type')))
    if (!type) return accept([])
    const to = field(payload, 'data', 'to')
    const recipients = (Array.isArray(to) ? to : [to]).map(text).filter(Boolean)
    const detail = text(field(payload, 'data', 'bounce', 'message')) || text(field(payload, 'type'))
    return accept(
      recipients.map(
        (email, index): MailEvent => ({ provider: 'resend', eventId: `${id}/${index}`, email, type, detail }),
      ),
    )
  }
}
