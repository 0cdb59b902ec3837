import { verify } from 'node:crypto'
import { type Agent, get } from 'node:https'
import type { MailEvent, MailEventType } from './mail-event'
import { accept, field, jsonOf, type Provider, readJson, refuse, signedTime, text } from './provider'
import { SnsCertificates } from './sns-certificates'

// What SNS signs for each type of message: these fields, in this order, each name then value
// (those absent, such as a notification's Subject, left out). SignatureVersion 1 is SHA1withRSA, 2
// SHA256withRSA.
const CONFIRMATION_FIELDS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type']
const SIGNED_FIELDS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: CONFIRMATION_FIELDS,
  UnsubscribeConfirmation: CONFIRMATION_FIELDS,
}
type SnsType = keyof typeof SIGNED_FIELDS
const DIGESTS: Record<string, string> = { '1': 'sha1', '2': 'sha256' }

const isSnsType = (type: string): type is SnsType => Object.hasOwn(SIGNED_FIELDS, type)

/**
 * True when `url` is on the topic's own region, https://sns.<region>.amazonaws.com/, and the rest
 * of it matches `rest`: the only URLs ever fetched are SNS's signing certificates and subscription
 * confirmations there (the topic comes from MAIL_EVENTS_SES_TOPIC_ARN: arn:aws:sns:REGION:…).
 */
function onTopicRegion(url: string, topic: string, rest: RegExp): boolean {
  const region = topic.split(':')[3] ?? ''
  const origin = `https://sns.${region}.amazonaws.com/`
  return /^[a-z0-9-]+$/.test(region) && url.startsWith(origin) && rest.test(url.slice(origin.length))
}
const CERTIFICATE_FILE = /^SimpleNotificationService-[A-Za-z0-9]{32}\.pem$/
const CONFIRMATION = /^\?Action=ConfirmSubscription&/

function typeOf(kind: string, bounceType: string): MailEventType | undefined {
  // SES suppressions (bounceSubType Suppressed, OnAccountSuppressionList) are permanent bounces.
  // SES has no unsubscribe event for mail sent through its SMTP interface: a recipient unsubscribes
  // through our own List-Unsubscribe link, which SES passes on untouched.
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

/** True when the message's signature verifies against the certificate, as SNS signs. */
function signatureVerifies(payload: unknown, type: SnsType, pem: string): boolean {
  const signed = SIGNED_FIELDS[type]
    .filter((name) => typeof field(payload, name) === 'string')
    .map((name) => `${name}\n${text(field(payload, name))}\n`)
    .join('')
  const digest = DIGESTS[text(field(payload, 'SignatureVersion'))] ?? 'sha256'
  try {
    return verify(digest, Buffer.from(signed), pem, Buffer.from(text(field(payload, 'Signature')), 'base64'))
  } catch {
    return false
  }
}

/**
 * What can be checked without fetching anything, cheapest first: the type, an accepted topic, the
 * signature version, a certificate URL of SNS's shape in the topic's region, a timestamp as SNS
 * writes it within five minutes (signedTime, as every provider's). A refusal, or the message's type and certificate URL.
 */
function checkCheapParts(payload: unknown, topics: readonly string[]) {
  const type = text(field(payload, 'Type'))
  if (!isSnsType(type)) return refuse(400, 'not an SNS message type')
  const topic = text(field(payload, 'TopicArn'))
  if (!topics.includes(topic)) return refuse(403, 'the SNS topic is not one of MAIL_EVENTS_SES_TOPIC_ARN')
  if (!Object.hasOwn(DIGESTS, text(field(payload, 'SignatureVersion'))))
    return refuse(400, 'the SNS SignatureVersion is not 1 or 2')
  const certUrl = text(field(payload, 'SigningCertURL'))
  if (!onTopicRegion(certUrl, topic, CERTIFICATE_FILE))
    return refuse(400, "the SigningCertURL is not SNS's, on sns.<the topic's region>.amazonaws.com")
  const time = signedTime(field(payload, 'Timestamp'), 'SNS', 'iso')
  if (!time.ok) return time
  return { ok: true as const, type, topic, certUrl }
}

/**
 * Amazon SES reports through SNS. A message is checked before anything is fetched (checkCheapParts),
 * then its signature, against SNS's certificate (fetched once and kept; a failed fetch is not
 * tried again for a minute: sns-certificates.ts). A SubscriptionConfirmation is confirmed only then,
 * and only on its topic's sns.<region>.amazonaws.com. `agent` is how certificates and confirmations
 * are fetched (tests serve their own).
 */
export function sesProvider(topics: readonly string[], agent?: Agent): Provider {
  const certificates = new SnsCertificates(agent)
  return async (request) => {
    const read = readJson(request.body)
    if (!read.ok) return read
    const { payload } = read
    const cheap = checkCheapParts(payload, topics)
    if (!cheap.ok) return cheap
    const pem = await certificates.get(cheap.certUrl)
    if (!pem) return refuse(503, "SNS's signing certificate cannot be fetched now: SNS will retry")
    if (!signatureVerifies(payload, cheap.type, pem)) return refuse(401, 'the SNS signature does not verify')
    if (cheap.type === 'SubscriptionConfirmation') {
      const url = text(field(payload, 'SubscribeURL'))
      if (!onTopicRegion(url, cheap.topic, CONFIRMATION))
        return refuse(400, "the SubscribeURL is not on sns.<the topic's region>.amazonaws.com")
      if (!(await confirmSubscription(url, agent))) return refuse(502, 'SNS did not confirm the subscription')
      return accept([])
    }
    if (cheap.type !== 'Notification') return accept([])
    return accept(mapNotification(text(field(payload, 'MessageId')), text(field(payload, 'Message'))))
  }
}
