import { timingSafeEqual } from 'node:crypto'
import type { MailEventType } from '../../waitlist/mail-events/mail-event'
import { accept, field, jsonOf, type Provider, refuse, text } from './provider'

// Postmark's bounce types (its "Type" field) we act on; the rest (auto-responders…) change nothing.
const HARD = ['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated', 'SpamNotification']
const SOFT = ['SoftBounce', 'Transient', 'DnsError', 'Blocked']

function typeOf(payload: unknown): MailEventType | undefined {
  const record = text(field(payload, 'RecordType'))
  const kind = text(field(payload, 'Type'))
  if (record === 'SpamComplaint' || kind === 'SpamComplaint') return 'complaint'
  if (record === 'Delivery') return 'delivered'
  if (record === 'SubscriptionChange') {
    // Postmark suppressing an address stands for the bounce or complaint behind it.
    if (field(payload, 'SuppressSending') !== true) return undefined
    return text(field(payload, 'SuppressionReason')) === 'SpamComplaint' ? 'complaint' : 'hard'
  }
  if (record !== 'Bounce') return undefined
  if (HARD.includes(kind)) return 'hard'
  if (SOFT.includes(kind)) return 'soft'
  return undefined
}

/**
 * Postmark signs nothing: the webhook URL carries a user and password that it sends as HTTP Basic
 * auth, compared here in constant time.
 */
export function postmarkProvider(auth: string): Provider {
  const expected = Buffer.from(`Basic ${Buffer.from(auth).toString('base64')}`)
  return async (request) => {
    const given = Buffer.from(request.header('authorization') ?? '')
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return refuse(401, 'wrong or missing Basic auth')
    const payload = jsonOf(request.body)
    const type = typeOf(payload)
    const email = text(field(payload, 'Email')) || text(field(payload, 'Recipient'))
    if (!type || !email) return accept([])
    const id =
      String(field(payload, 'ID') ?? '') ||
      `${text(field(payload, 'MessageID'))}/${text(field(payload, 'RecordType'))}/${text(field(payload, 'ChangedAt'))}`
    const detail =
      text(field(payload, 'Description')) ||
      text(field(payload, 'Details')) ||
      text(field(payload, 'RecordType'))
    return accept([{ provider: 'postmark', eventId: id, email, type, detail }])
  }
}
