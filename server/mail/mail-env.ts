import * as z from 'zod'
import { type EnvOf, optional } from '../base/optional-env'
import { KEY_PROBLEM, privateKeyProblem, SELECTOR, SELECTOR_PROBLEM } from './dkim-signer'
import { BARE_ADDRESS, MAIL_FROM_PROBLEM, parseMailFrom, smtpUrlProblem } from './transport-config'

const rate = (fallback: number) => optional(z.coerce.number().min(0).max(1)).transform((v) => v ?? fallback)
const count = (fallback: number) => optional(z.coerce.number().int().min(1)).transform((v) => v ?? fallback)

/**
 * Everything mail reads of the environment, merged into the server's env schema: the transport, the
 * invitations and confirmations, the provider events and send health (docs/configuration.md). SMTP_URL,
 * MAIL_FROM and each provider's setting may also be a 0600 file in DATA_DIR (transport-config.ts,
 * events/event-settings.ts); a provider without its setting has no route (404).
 */
export const mailEnv = {
  // The transport.
  /** smtp[s]://user:password@host[:port]; also read from DATA_DIR/smtp-url (transport-config.ts). */
  SMTP_URL: optional(
    z.string().superRefine((value, context) => {
      const problem = smtpUrlProblem(value)
      if (problem) context.addIssue({ code: 'custom', message: problem })
    }),
  ),
  /** The sender of every message; also read from DATA_DIR/mail-from. */
  MAIL_FROM: optional(z.string().refine((value) => parseMailFrom(value) !== undefined, MAIL_FROM_PROBLEM)),
  /** The envelope sender (bounces go there), when not MAIL_FROM's address: SPF and MX are read at its domain. */
  MAIL_RETURN_PATH: optional(
    z.string().regex(BARE_ADDRESS, 'must be a bare address: bounces@mail.example.com'),
  ),
  // DKIM signing by the server, for relays that do not sign, and the provider's selectors otherwise.
  /** The selector the server signs with (`SELECTOR._domainkey.` MAIL_FROM's domain); needs a key. */
  DKIM_SELECTOR: optional(z.string().regex(SELECTOR, SELECTOR_PROBLEM)),
  /** The signing key (PEM, RSA or Ed25519; `\n` for line breaks is read as one); or DKIM_PRIVATE_KEY_FILE. */
  DKIM_PRIVATE_KEY: optional(
    z.string().refine((value) => privateKeyProblem(value) === undefined, KEY_PROBLEM),
  ),
  /** A file holding the signing key, read at start. */
  DKIM_PRIVATE_KEY_FILE: optional(z.string()),
  /** The provider's selectors (comma-separated) when the relay signs: the preflight reads each key. */
  DKIM_SELECTORS: optional(z.string())
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .refine((list) => list.every((s) => SELECTOR.test(s)), SELECTOR_PROBLEM),
  /** How long one message may take, connection included, before the attempt counts as failed. */
  SMTP_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).transform((v) => v ?? 30_000),
  // Invitations and confirmations.
  /** Messages per minute for all servers on the database together; 0 sends as fast as SMTP takes them. */
  MAIL_PER_MINUTE: optional(z.coerce.number().int().min(0).max(1_000_000)).transform((v) => v ?? 60),
  /** New signups get a confirmation message and stay `unconfirmed` (never invited) until confirmed. */
  CONFIRM_SIGNUPS: optional(z.stringbool()).transform((v) => v ?? false),
  /** The invitation's link (its invite code is added as ?invite=…); the site config's betaUrl by default. */
  BETA_URL: optional(
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' })
      .refine((value) => !/[\s"'<>]/.test(value), 'must be a plain address such as https://beta.example.com'),
  ),
  /** The wait after a message's first transient failure; each later wait doubles, up to 300 times this. */
  MAIL_RETRY_BASE_MS: optional(z.coerce.number().int().min(10)).transform((v) => v ?? 10_000),
  /** How long a message is retried after transient failures before it is marked failed. */
  MAIL_RETRY_FOR_MS: optional(z.coerce.number().int().min(0)).transform((v) => v ?? 24 * 60 * 60 * 1_000),
  /** Days an unconfirmed entry waits for its link to be followed before it is erased; 0 keeps them for ever. */
  CONFIRM_EXPIRE_DAYS: optional(z.coerce.number().min(0).max(3660)).transform((v) => v ?? 7),
  /** How often each server looks for expired unconfirmed entries. */
  CONFIRM_EXPIRE_CHECK_MS: optional(z.coerce.number().int().min(100)).transform((v) => v ?? 60 * 60 * 1_000),
  // Provider events and send health.
  /** Resend's signing secret (whsec_…), for POST /mail-events/resend. */
  MAIL_EVENTS_RESEND_SECRET: optional(z.string().startsWith('whsec_', 'must be the whsec_… signing secret')),
  /** user:password that Postmark sends as HTTP Basic auth, for POST /mail-events/postmark. */
  MAIL_EVENTS_POSTMARK_AUTH: optional(z.string().regex(/^[^:]+:.+$/, 'must be user:password')),
  /** SendGrid's verification key (base64 ECDSA P-256 public key), for POST /mail-events/sendgrid. */
  MAIL_EVENTS_SENDGRID_KEY: optional(z.string().min(40)),
  /** Mailgun's HTTP webhook signing key, for POST /mail-events/mailgun. */
  MAIL_EVENTS_MAILGUN_KEY: optional(z.string().min(8)),
  /** The SNS topic ARNs (comma-separated) whose messages POST /mail-events/ses accepts. */
  MAIL_EVENTS_SES_TOPIC_ARN: optional(
    z
      .string()
      .regex(
        /^arn:aws[a-z-]*:sns:[^,\s]+(,\s*arn:aws[a-z-]*:sns:[^,\s]+)*$/,
        'must be arn:aws:sns:… (comma-separated)',
      ),
  ),
  /** A Standard Webhooks secret (whsec_…), for POST /mail-events/generic. */
  MAIL_EVENTS_SECRET: optional(z.string().startsWith('whsec_', 'must be a whsec_… secret')),
  /** Hard bounces among a lane's last messages sent past which the lane pauses; 1 turns it off. */
  MAIL_PAUSE_BOUNCE_RATE: rate(0.05),
  /** Complaints among a lane's last messages sent past which the lane pauses; 1 turns it off. */
  MAIL_PAUSE_COMPLAINT_RATE: rate(0.003),
  /** The hard bounces a lane's window must also hold before it pauses: no single bounce pauses. */
  MAIL_PAUSE_MIN_BOUNCES: count(5),
  /** The complaints a lane's window must also hold before it pauses: no single complaint pauses. */
  MAIL_PAUSE_MIN_COMPLAINTS: count(2),
  /**
   * The signup networks the confirmations' bounces must also come from before that whole lane
   * pauses; fewer pause only their own networks' confirmations (ADR 083).
   */
  MAIL_PAUSE_MIN_NETWORKS: count(5),
}

/** What the mail room's start-up reads of the env. */
export type MailEnv = EnvOf<typeof mailEnv>
