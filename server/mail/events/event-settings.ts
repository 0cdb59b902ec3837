import type { Agent } from 'node:https'
import { join } from 'node:path'
import { ConfigError } from '../../base/startup-error'
import { readSecretFile } from '../../db/secret-file'
import { mailEnv } from '../mail-env'
import { genericProvider } from './generic'
import type { MailEventProvider } from './mail-event'
import { mailgunProvider } from './mailgun'
import { postmarkProvider } from './postmark'
import type { Provider } from './provider'
import { resendProvider } from './resend'
import { sendgridProvider } from './sendgrid'
import { sesProvider } from './ses'

/** Each provider's setting, and how its verifier is built from it. */
const SETTINGS = {
  ses: {
    name: 'MAIL_EVENTS_SES_TOPIC_ARN',
    build: (value: string, agent?: Agent) => sesProvider(value.split(/\s*,\s*/), agent),
  },
  postmark: { name: 'MAIL_EVENTS_POSTMARK_AUTH', build: postmarkProvider },
  sendgrid: { name: 'MAIL_EVENTS_SENDGRID_KEY', build: sendgridProvider },
  mailgun: { name: 'MAIL_EVENTS_MAILGUN_KEY', build: mailgunProvider },
  resend: { name: 'MAIL_EVENTS_RESEND_SECRET', build: resendProvider },
  generic: { name: 'MAIL_EVENTS_SECRET', build: genericProvider },
} as const satisfies Record<MailEventProvider, { name: keyof typeof mailEnv; build: unknown }>

export type MailEventProviders = Partial<Record<MailEventProvider, Provider>>

/** The file read when a setting's variable is unset: MAIL_EVENTS_SECRET → DATA_DIR/mail-events-secret. */
export const settingFile = (name: string) => name.toLowerCase().replaceAll('_', '-')

/**
 * The providers whose setting is there, from the environment, else from its 0600 file in DATA_DIR
 * (as smtp-url is read); a provider without one has no route (404). A bad value in a file is a
 * ConfigError naming the file, never quoting it. `agent` fetches SNS certificates (tests only).
 */
export async function loadMailEventProviders(
  env: Partial<Record<keyof typeof mailEnv, unknown>> & { DATA_DIR: string },
  agent?: Agent,
): Promise<MailEventProviders> {
  const providers: MailEventProviders = {}
  for (const [provider, setting] of Object.entries(SETTINGS) as [
    MailEventProvider,
    (typeof SETTINGS)[MailEventProvider],
  ][]) {
    const path = join(env.DATA_DIR, settingFile(setting.name))
    const value = (env[setting.name] as string | undefined) ?? (await readSecretFile(path))
    if (value === undefined) continue
    const checked = mailEnv[setting.name].safeParse(value)
    if (!checked.success)
      throw new ConfigError(
        `${setting.name} from ${path} ${checked.error.issues[0]?.message ?? 'is not valid'}`,
      )
    try {
      providers[provider] = setting.build(checked.data as string, agent)
    } catch {
      // A key the provider's library cannot read (SendGrid's must be an ECDSA P-256 public key).
      throw new ConfigError(`${setting.name} is not a key its provider's library can read: copy it again`)
    }
  }
  return providers
}
