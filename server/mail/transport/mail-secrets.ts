import { join } from 'node:path'
import { ConfigError } from '../../base/startup-error'
import { readSecretFile } from '../../db/secret-file'
import { MAIL_FROM_PROBLEM, smtpUrlProblem } from '../mail-env'
import { type MailFrom, parseMailFrom } from './mail-from'
import { parseSmtpUrl, type SmtpConfig } from './smtp-url'

/** The files read when the variable is unset: one line each, mode 0600, as DATA_DIR/jwt-secret. */
export const SMTP_URL_FILE = 'smtp-url'
export const MAIL_FROM_FILE = 'mail-from'

/** How to send: both set, or neither (no SMTP_URL: nothing can be sent, and every sender says so). */
export type MailTransportConfig = { smtp: SmtpConfig; from: MailFrom } | undefined

/**
 * SMTP_URL and MAIL_FROM from the environment, else from their secret files in DATA_DIR. A bad
 * value is a ConfigError naming the variable or the file, never quoting it.
 */
export async function loadMailTransportConfig(env: {
  SMTP_URL?: string
  MAIL_FROM?: string
  DATA_DIR: string
}): Promise<MailTransportConfig> {
  const smtpUrl = env.SMTP_URL ?? (await readSecretFile(join(env.DATA_DIR, SMTP_URL_FILE)))
  const mailFrom = env.MAIL_FROM ?? (await readSecretFile(join(env.DATA_DIR, MAIL_FROM_FILE)))
  const fromFile = (name: string) => `${join(env.DATA_DIR, name)} (read because the variable is unset)`
  if (!smtpUrl) return undefined
  const urlProblem = smtpUrlProblem(smtpUrl)
  if (urlProblem)
    throw new ConfigError(`SMTP_URL ${env.SMTP_URL ? '' : `from ${fromFile(SMTP_URL_FILE)} `}${urlProblem}`)
  if (!mailFrom)
    throw new ConfigError(
      'SMTP_URL is set but MAIL_FROM is not: set it (or write it to DATA_DIR/mail-from), e.g. MAIL_FROM="Tessel Labs <beta@example.com>"',
    )
  const from = parseMailFrom(mailFrom)
  if (!from)
    throw new ConfigError(
      `MAIL_FROM ${env.MAIL_FROM ? '' : `from ${fromFile(MAIL_FROM_FILE)} `}${MAIL_FROM_PROBLEM}`,
    )
  return { smtp: parseSmtpUrl(smtpUrl), from }
}
