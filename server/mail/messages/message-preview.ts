import { randomBytes, randomUUID } from 'node:crypto'
import { mailWords } from '../../../contract/site-config'
import { normalizeSiteUrl } from '../../base/normalize-site-url'
import type { MailSettings } from '../queue/mail-settings'
import type { OutgoingMail } from '../smtp-transport'
import { composeMessage, type MessageContext } from './compose-message'
import { linkKeys } from './link-seals'

/** What a shell knows of the server a preview stands for, before any server has recorded its own settings. */
export interface PreviewFallback {
  SITE_URL?: string
  BETA_URL?: string
  PORT: number
}

/** What a preview shows the message with: the sending server's settings, or what can be guessed. */
export interface PreviewSettings {
  context: MessageContext
  /** The From header; null where the server that would send has no MAIL_FROM (no SMTP_URL). */
  from: string | null
  /** MAIL_FROM's domain, the Message-ID's right part. */
  messageDomain: string
  perMinute: number
  /** Where the server's own settings are not known (none has started yet): why, in words. */
  unknown?: string
}

/**
 * Links and an invite code sealed with a throwaway key, so they look real and work nowhere: a
 * preview never hands out a usable code or unsubscribe link.
 */
const throwawayKeys = () => linkKeys(randomBytes(32))

/**
 * The message as the server sends it: its SITE_URL, BETA_URL and MAIL_FROM, which it records in the
 * database at start (mail-settings.ts). Before any server has started, this shell's SITE_URL and
 * BETA_URL, or their defaults, as a server started from here would use them, and a note saying so.
 */
export function previewSettings(settings: MailSettings, env: PreviewFallback): PreviewSettings {
  const { message } = settings
  if (message)
    return {
      context: { siteUrl: message.siteUrl, betaUrl: message.betaUrl, keys: throwawayKeys() },
      from: message.from,
      messageDomain: settings.messageDomain,
      perMinute: message.perMinute,
    }
  const siteUrl = normalizeSiteUrl(env.SITE_URL ?? `http://127.0.0.1:${env.PORT}`)
  return {
    context: { siteUrl, betaUrl: env.BETA_URL ?? mailWords.betaUrl, keys: throwawayKeys() },
    from: null,
    messageDomain: 'example.com',
    perMinute: 0,
    unknown:
      'No server has started on this database yet, so its SITE_URL, BETA_URL and MAIL_FROM are not known: ' +
      `the links below lead to ${siteUrl}, as a server started from this shell would make them.`,
  }
}

/** One invitation as it would go to `email` (the first person of a batch, or a sample address). */
export function previewInvitation(preview: PreviewSettings, email: string): OutgoingMail {
  return composeMessage(preview.context, {
    kind: 'invitation',
    uuid: randomUUID(),
    email,
    queuedAt: new Date(),
    messageDomain: preview.messageDomain,
  })
}

/** Where the server that would send has no MAIL_FROM, the From line says so. */
export const NO_SENDER = '(none yet: the server that sends has no SMTP_URL and MAIL_FROM)'

/** The preview as the terminal shows it: the headers that matter, then the text part. */
export function renderPreview(mail: OutgoingMail, from: string | null): string {
  return [
    `From: ${from ?? NO_SENDER}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    ...Object.entries(mail.headers).map(([name, value]) => `${name}: ${value}`),
    '',
    mail.text,
    `(An HTML part with the same words and links goes with it: ${mail.html.length} characters.)`,
  ].join('\n')
}
