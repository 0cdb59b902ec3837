import { type Agent, get } from 'node:https'
import Validator from 'sns-payload-validator'
import type { MailEvent, MailEventType } from '../../waitlist/mail-events/mail-event'
import { accept, field, jsonOf, type Provider, refuse, text, timestampFresh } from './provider'

/**
 * The only URLs ever fetched: SNS's own signing certificates and subscription confirmations, on
 * https://sns.<region>.amazonaws.com/ (the validator checks the certificate's name further).
 */
const SNS_URL = /^https:\/\/sns\.[a-z0-9-]+\.amazonaws\.com\//

function typeOf(kind: string, bounceType: string): MailEventType | undefined {
  if (kind === 'Bounce') return bounceType === 'Permanent' ? 'hard' : 'soft'
  if (kind === 'Complaint') return 'complaint'
  if (kind === 'Delivery') return 'delivered'
  return undefined
}

/** Who a notification is about: bounced, complained or delivered recipients, with their diagnostic. */
function recipientsOf(message: unknown, kind: string): { email: string; detail: string }[] {
  const list =
    kind === 'Bounce'
      ? field(message, 'bounce', 'bouncedRecipients')
      : kind === 'Complaint'
        ? field(message, 'complaint', 'complainedRecipients')
        : field(message, 'delivery', 'recipients')
  if (!Array.isArray(list)) return []
  return list
    .map((item) =>
      typeof item === 'string'
        ? { email: item, detail: kind }
        : { email: text(field(item, 'emailAddress')), detail: text(field(item, 'diagnosticCode')) || kind },
    )
    .filter((recipient) => recipient.email)
}

/** The SES notification (or event publishing record) an SNS Notification carries, as MailEvents. */
function mapNotification(snsMessageId: string, body: string): MailEvent[] {
  const message = jsonOf(Buffer.from(body))
  const kind = text(field(message, 'notificationType')) || text(field(message, 'eventType'))
  const type = typeOf(kind, text(field(message, 'bounce', 'bounceType')))
  if (!type) return []
  const messageId = text(field(message, 'mail', 'commonHeaders', 'messageId'))
  return recipientsOf(message, kind).map(({ email, detail }, index) => ({
    provider: 'ses',
    eventId: `${snsMessageId}/${index}`,
    email,
    messageId,
    type,
    detail,
  }))
}

/** GETs an SNS SubscribeURL: SNS then starts sending the topic's notifications here. */
function confirmSubscription(url: string, agent: Agent | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, { agent, timeout: 10_000 }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on('timeout', () => request.destroy())
    request.on('error', () => resolve(false))
  })
}

/**
 * Amazon SES reports through SNS. A message is checked, in this order, before anything is fetched:
 * an accepted topic, a certificate URL on sns.<region>.amazonaws.com, a timestamp within five
 * minutes; then its signature, against the certificate (fetched once and cached, by
 * sns-payload-validator). A SubscriptionConfirmation is confirmed only then, and only on an
 * amazonaws.com SubscribeURL. `agent` is how certificates are fetched (tests serve their own).
 */
export function sesProvider(topics: readonly string[], agent?: Agent): Provider {
  const validator = new Validator({ useCache: true, maxCerts: 100, requestAgent: agent })
  return async (request) => {
    const payload = jsonOf(request.body)
    const topic = text(field(payload, 'TopicArn'))
    if (!topics.includes(topic)) return refuse(403, 'the SNS topic is not one of MAIL_EVENTS_SES_TOPIC_ARN')
    if (!SNS_URL.test(text(field(payload, 'SigningCertURL'))))
      return refuse(400, 'the SigningCertURL is not on sns.<region>.amazonaws.com')
    if (!timestampFresh(Date.parse(text(field(payload, 'Timestamp'))) / 1000))
      return refuse(401, 'the SNS timestamp is more than 5 minutes off')
    try {
      await validator.validate(payload as Validator.SnsPayload)
    } catch {
      return refuse(401, 'the SNS signature does not verify')
    }
    const type = text(field(payload, 'Type'))
    if (type === 'SubscriptionConfirmation') {
      const url = text(field(payload, 'SubscribeURL'))
      if (!SNS_URL.test(url)) return refuse(400, 'the SubscribeURL is not on sns.<region>.amazonaws.com')
      if (!(await confirmSubscription(url, agent))) return refuse(502, 'SNS did not confirm the subscription')
      return accept([])
    }
    if (type !== 'Notification') return accept([])
    return accept(mapNotification(text(field(payload, 'MessageId')), text(field(payload, 'Message'))))
  }
}
