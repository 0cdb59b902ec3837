import { createHmac, timingSafeEqual } from 'node:crypto'
import type { MailEventType } from './mail-event'
import {
  accept,
  field,
  type Provider,
  readJson,
  refuse,
  signedTime,
  TOLERANCE_SECONDS,
  text,
} from './provider'

function typeOf(event: string, severity: string, reason: string): MailEventType | undefined {
  if (event === 'complained') return 'complaint'
  // The recipient used Mailgun's unsubscribe link (its %unsubscribe_url% or its List-Unsubscribe).
  if (event === 'unsubscribed') return 'unsubscribe'
  if (event === 'delivered') return 'delivered'
  if (event !== 'failed') return undefined
  // Mailgun's suppressions come as permanent failures, each named after what put the address there.
  if (reason === 'suppress-complaint') return 'complaint'
  if (reason === 'suppress-unsubscribe') return 'unsubscribe'
  return severity === 'permanent' ? 'hard' : 'soft'
}

/**
 * Mailgun signs each webhook with the HTTP webhook signing key: HMAC-SHA256 of timestamp and token,
 * in the body's `signature` object, compared in constant time. The timestamp is read first, as
 * every provider's is (signedTime: 1 to 12 digits, within five minutes). The signature leaves
 * `event-data` out, so one seen anywhere on the account would carry any event while its timestamp
 * is fresh: the token and the signature go with the verdict, each to be accepted once
 * (apply-mail-event.ts), as Mailgun's guide advises for the token. The signature too, because it
 * covers timestamp and token as one string: the same signed bytes split at another place carry
 * another token.
 */
export function mailgunProvider(key: string): Provider {
  return async (request) => {
    const read = readJson(request.body)
    if (!read.ok) return read
    const { payload } = read
    const timestamp = field(payload, 'signature', 'timestamp')
    const time = signedTime(timestamp, 'Mailgun')
    if (!time.ok) return time
    const token = text(field(payload, 'signature', 'token'))
    const signature = text(field(payload, 'signature', 'signature'))
    const given = Buffer.from(signature, 'utf8')
    const expected = Buffer.from(
      createHmac('sha256', key).update(`${timestamp}${token}`).digest('hex'),
      'utf8',
    )
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return refuse(401, 'the Mailgun signature does not verify')
    const once = {
      provider: 'mailgun' as const,
      values: [token, signature],
      expiresAt: new Date((time.seconds + TOLERANCE_SECONDS) * 1000),
    }
    const data = field(payload, 'event-data')
    const type = typeOf(
      text(field(data, 'event')),
      text(field(data, 'severity')),
      text(field(data, 'reason')),
    )
    const email = text(field(data, 'recipient'))
    if (!type || !email) return accept([], once)
    const messageId = text(field(data, 'message', 'headers', 'message-id'))
    const detail =
      text(field(data, 'delivery-status', 'description')) ||
      text(field(data, 'delivery-status', 'message')) ||
      text(field(data, 'reason')) ||
      text(field(data, 'event'))
    return accept(
      [{ provider: 'mailgun', eventId: text(field(data, 'id')) || token, email, messageId, type, detail }],
      once,
    )
  }
}
