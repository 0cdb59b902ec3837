import { timingSafeEqual } from 'node:crypto'
import type { MailEventType } from './mail-event'
import { accept, field, jsonOf, type Provider, refuse, text } from './provider'

// Postmark's bounce types (its "Type" field) we act on; the rest (auto-responders…) change nothing.
const HARD = ['HardBounce', 'BadEmailAddress', 'SpamNotification']
const SOFT = ['SoftBounce', 'Transient', 'DnsError', 'Blocked']
// A bounce record for a request to stop mail (Type "Unsubscribe"), or the lab deactivating the
// address in Postmark by hand: no more mail, and no bounce.
const STOP = ['Unsubscribe', 'ManuallyDeactivated']

/**
 * A Subscription Change that suppresses the address, by its reason: a hard bounce or a spam
 * complaint stand for themselves; a manual suppression is the recipient unsubscribing (Origin
 * "Recipient") or the lab or Postmark stopping mail to it (Origin "Customer", "Admin"): an
 * unsubscribe either way, never a bounce. A reactivation (SuppressSending false) changes nothing.
 */
function suppressionOf(payload: unknown): MailEventType | undefined {
  if (field(payload, 'SuppressSending') !== true) return undefined
  const reason = text(field(payload, 'SuppressionReason'))
  if (reason === 'HardBounce') return 'hard'
  if (reason === 'SpamComplaint') return 'complaint'
  return 'unsubscribe'
}

function typeOf(payload: unknown): MailEventType | undefined {
  const record = text(field(payload, 'RecordType'))
  const kind = text(field(payload, 'Type'))
  if (record === 'SpamComplaint' || kind === 'SpamComplaint') return 'complaint'
  if (record === 'Delivery') return 'delivered'
  if (record === 'SubscriptionChange') return suppressionOf(payload)
  if (record !== 'Bounce') return undefined
  if (HARD.includes(kind)) return 'hard'
  if (SOFT.includes(kind)) return 'soft'
  if (STOP.includes(kind)) return 'unsubscribe'
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
      [text(field(payload, 'SuppressionReason')), text(field(payload, 'Origin'))]
        .filter(Boolean)
        .join(' by ') ||
      text(field(payload, 'RecordType'))
    return accept([{ provider: 'postmark', eventId: id, email, type, detail }])
  }
}
