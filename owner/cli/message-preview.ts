import { randomBytes, randomUUID } from 'node:crypto'
import { mailWords } from '../../contract/site-config'
import type { ServerEnv } from '../../server/boot/env'
import { normalizeSiteUrl } from '../../server/http/site-url'
import type { OutgoingMail } from '../../server/mail/outgoing-mail'
import { composeMessage, type MessageContext } from '../../server/waitlist/invitations/compose-message'
import { linkKeys } from '../../server/waitlist/invitations/link-keys'

/**
 * The message as the server will send it (SITE_URL, BETA_URL, the lab's words), for a preview.
 * Its links and invite code are sealed with a throwaway key, so they look real and work nowhere:
 * a preview never hands out a usable code or unsubscribe link.
 */
export function previewContext(env: Pick<ServerEnv, 'SITE_URL' | 'BETA_URL' | 'PORT'>): MessageContext {
  return {
    siteUrl: normalizeSiteUrl(env.SITE_URL ?? `http://127.0.0.1:${env.PORT}`),
    betaUrl: env.BETA_URL ?? mailWords.betaUrl,
    keys: linkKeys(randomBytes(32)),
  }
}

/** One invitation as it would go to `email` (the first person of a batch, or a sample address). */
export function previewInvitation(
  context: MessageContext,
  email: string,
  messageDomain: string,
): OutgoingMail {
  return composeMessage(context, {
    kind: 'invitation',
    uuid: randomUUID(),
    email,
    queuedAt: new Date(),
    messageDomain,
  })
}

/** The preview as the terminal shows it: the headers that matter, then the text part. */
export function renderPreview(mail: OutgoingMail, from: string): string {
  return [
    `From: ${from}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    ...Object.entries(mail.headers).map(([name, value]) => `${name}: ${value}`),
    '',
    mail.text,
    `(An HTML part with the same words and links goes with it: ${mail.html.length} characters.)`,
  ].join('\n')
}
