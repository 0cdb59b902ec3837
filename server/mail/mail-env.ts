import { z } from 'zod'
import { optional } from '../base/optional-env'
import { parseMailFrom } from './mail-from'
import { parseSmtpUrl, SmtpUrlError } from './smtp-url'

/** SMTP_URL's problem in words that never quote it, or undefined when it is usable. */
export function smtpUrlProblem(value: string): string | undefined {
  try {
    parseSmtpUrl(value)
    return undefined
  } catch (error) {
    if (error instanceof SmtpUrlError) return error.message.replace(/^SMTP_URL:? ?/, '')
    throw error
  }
}

export const MAIL_FROM_PROBLEM =
  'must be an address, or a name and an address: Tessel Labs <beta@example.com>'

/** The mail transport's variables, merged into the server's env schema. */
export const mailTransportEnv = {
  /** smtp[s]://user:password@host[:port]; also read from DATA_DIR/smtp-url (server/mail/mail-secrets.ts). */
  SMTP_URL: optional(
    z.string().superRefine((value, context) => {
      const problem = smtpUrlProblem(value)
      if (problem) context.addIssue({ code: 'custom', message: problem })
    }),
  ),
  /** The sender of every message; also read from DATA_DIR/mail-from. */
  MAIL_FROM: optional(z.string().refine((value) => parseMailFrom(value) !== undefined, MAIL_FROM_PROBLEM)),
  /** How long one message may take, connection included, before the attempt counts as failed. */
  SMTP_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).transform((v) => v ?? 30_000),
}
