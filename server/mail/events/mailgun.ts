import { createHmac, timingSafeEqual } from 'node:crypto'
import type { MailEventType } from './mail-event'
import {
  accept,
  field,
  type Provider,
  readJson,
  refuse,
  TOLERANCE_SECONDS,
  text,
  timestampFresh,
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
 * in the body's `signature` object, compared in constant time; a timestamp over five minutes old
 * is refused. The signature leaves `event-data` out, so one seen anywhere on the account would carry
 * any event while its timestamp is fresh: its token goes with the verdict, to be accepted once
 * (apply-mail-event.ts), as Mailgun's guide advises.
 */
export function mailgunProvider(key: string): Provider {
  return async (request) => {
    const read = readJson(request.body)
    if (!read.ok) return read
    const { payload } = read
    const timestamp = text(field(payload, 'signature', 'timestamp'))
    const token = text(field(payload, 'signature', 'token'))
    const given = Buffer.from(text(field(payload, 'signature', 'signature')), 'utf8')
    const expected = Buffer.from(
      createHmac('sha256', key)
        .update(timestamp + token)
        .digest('hex'),
      'utf8',
    )
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return refuse(401, 'the Mailgun signature does not verify')
    if (!timestampFresh(timestamp)) return refuse(401, 'the Mailgun timestamp is more than 5 minutes off')
    const once = {
      provider: 'mailgun' as const,
      token,
      expiresAt: new Date((Number(timestamp) + TOLERANCE_SECONDS) * 1000),
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
