import { mailWords, siteConfig } from '../../../contract/site-config'
import type { OutgoingMail } from '../smtp-transport'
import type { LinkKeys } from './link-seals'
import { makeInviteCode, sealAddress } from './link-seals'
import { type MessageParts, messageHtml, messageText } from './message-html'

/** A `test` is the invitation as the next invitee gets it, sent to any address; its links change nothing. */
export type MessageKind = 'invitation' | 'confirmation' | 'test'

/** What every message needs beyond its row: where links lead, and the keys that sign them. */
export interface MessageContext {
  /** The site's public address, no trailing slash (SITE_URL, else the address the server listens on). */
  siteUrl: string
  /** BETA_URL, else mailWords.betaUrl. */
  betaUrl: string
  keys: LinkKeys
}

/** One queued message, as the outbox holds it. */
export interface QueuedMessage {
  kind: MessageKind
  /** The outbox row's UUID: the Message-ID's left part and the invite code's subject. */
  uuid: string
  email: string
  /** The person's first name, when the lab knows it (private.entry_names): the greeting names them. */
  firstName?: string | null
  queuedAt: Date
  /** MAIL_FROM's domain when it was queued: the Message-ID's right part. */
  messageDomain: string
}

/** The lab's name and the site's address put into the words. */
function words(text: string, siteUrl: string): string {
  return text
    .replaceAll('{lab}', siteConfig.labName)
    .replaceAll('{site}', siteUrl.replace(/^https?:\/\//, ''))
}

/** A test send's link is sealed with a key of its own, which the unsubscribe page only shows. */
export const unsubscribeUrl = (context: MessageContext, email: string, test = false) =>
  `${context.siteUrl}/unsubscribe?t=${sealAddress(test ? context.keys.testLink : context.keys.unsubscribe, email)}`

/** The person's own page (what the lab holds, a copy, erasure); a test send's opens on nothing. */
export const yourDataUrl = (context: MessageContext, email: string, test = false) =>
  `${context.siteUrl}/your-data?t=${sealAddress(test ? context.keys.testLink : context.keys.yourData, email)}`

export const confirmUrl = (context: MessageContext, email: string) =>
  `${context.siteUrl}/confirm?t=${sealAddress(context.keys.confirm, email)}`

/** The beta link with the invitation's code as ?invite=…, and the code itself. */
export function betaLink(context: MessageContext, message: QueuedMessage): { url: string; code: string } {
  const key = message.kind === 'test' ? context.keys.testInviteCode : context.keys.inviteCode
  const code = makeInviteCode(key, message.uuid, message.queuedAt)
  const url = new URL(context.betaUrl)
  url.searchParams.set('invite', code)
  return { url: url.toString(), code }
}

/** "Hello Ada," where the first name is known, else the kind's own greeting ("Hello,"). */
function greetingOf(message: QueuedMessage, greeting: string): string {
  const first = message.firstName?.trim()
  return first ? mailWords.greetingNamed.replaceAll('{name}', first) : greeting
}

function partsOf(context: MessageContext, message: QueuedMessage, unsubscribe: string): MessageParts {
  const say = (text: string) => words(text, context.siteUrl)
  const common = {
    signOff: say(mailWords.signOff),
    footer: say(mailWords.footer),
    unsubscribe: { label: mailWords.unsubscribe, url: unsubscribe },
    yourData: {
      label: mailWords.yourData,
      url: yourDataUrl(context, message.email, message.kind === 'test'),
    },
  }
  if (message.kind === 'confirmation') {
    const { subject, greeting, paragraphs, button } = mailWords.confirmation
    const url = confirmUrl(context, message.email)
    return {
      ...common,
      subject: say(subject),
      greeting: greetingOf(message, greeting),
      paragraphs: paragraphs.map(say),
      button: { label: button, url },
    }
  }
  const { subject, greeting, paragraphs, button, codeLabel } = mailWords.invitation
  const link = betaLink(context, message)
  return {
    ...common,
    subject: say(subject),
    greeting: greetingOf(message, greeting),
    paragraphs: paragraphs.map(say),
    button: { label: button, url: link.url },
    code: { label: codeLabel, value: link.code },
  }
}

/**
 * The whole message for one outbox row: both parts, a Message-ID fixed by the row, and the RFC 8058
 * headers (List-Unsubscribe with an https link that a POST of `List-Unsubscribe=One-Click` acts on).
 */
export function composeMessage(context: MessageContext, message: QueuedMessage): OutgoingMail {
  const unsubscribe = unsubscribeUrl(context, message.email, message.kind === 'test')
  const parts = partsOf(context, message, unsubscribe)
  return {
    to: message.email,
    subject: parts.subject,
    text: messageText(parts),
    html: messageHtml(parts),
    messageId: `<${message.uuid}@${message.messageDomain}>`,
    headers: {
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  }
}
