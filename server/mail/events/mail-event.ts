/**
 * What a mail provider said about a message after accepting it, in one shape whatever the provider
 * (server/mail/events/, one file per provider, maps its payload to it; nothing past those files knows a
 * provider's field names). ADR 043.
 */
export type MailEventType =
  /** Permanent: the address does not exist, or the provider suppresses or drops it. */
  | 'hard'
  /** Temporary: a full mailbox, a greylisting server; three in a row count as a hard bounce. */
  | 'soft'
  /** A spam report or a feedback-loop complaint: the person is never mailed again. */
  | 'complaint'
  /**
   * The person asked the provider for no more mail (its unsubscribe link or button), or the lab
   * suppressed the address there by hand: as our own unsubscribe link, never a bounce.
   */
  | 'unsubscribe'
  /** The receiving server accepted the message: soft bounces are no longer "in a row". */
  | 'delivered'

export const MAIL_EVENT_PROVIDERS = ['ses', 'postmark', 'sendgrid', 'mailgun', 'resend', 'generic'] as const
export type MailEventProvider = (typeof MAIL_EVENT_PROVIDERS)[number]

export interface MailEvent {
  provider: MailEventProvider
  /** The provider's own id of this event: the same event delivered twice changes nothing the second time. */
  eventId: string
  /** The recipient the event is about. */
  email: string
  /** The Message-ID the provider returns (<uuid@domain>, as we set it), when it does. */
  messageId?: string
  type: MailEventType
  /** The provider's words (a bounce's diagnostic), for the owner; never shown to anyone else. */
  detail: string
}

/** The outbox row's uuid in a Message-ID we set (<uuid@domain>, angle brackets optional). */
export function outboxUuidOf(messageId: string | undefined): string | undefined {
  const match = /^<?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^>\s]+>?$/i.exec(
    messageId?.trim() ?? '',
  )
  return match?.[1]?.toLowerCase()
}

/**
 * A provider's one-use values, for a signature that covers them while the event beside it is not
 * (Mailgun's token and the signature itself): accepted once, each remembered until the signature's
 * timestamp is too old to pass anyway; a POST bringing any of them again is a replay.
 */
export interface SignatureToken {
  provider: MailEventProvider
  /** Each value that must not come twice: a replay repeats at least one of them. */
  values: readonly string[]
  /** When the signature's timestamp leaves the accepted window. */
  expiresAt: Date
}
