import { z } from 'zod'
import { optional } from '../../base/optional-env'

const rate = (fallback: number) => optional(z.coerce.number().min(0).max(1)).transform((v) => v ?? fallback)
const count = (fallback: number) => optional(z.coerce.number().int().min(1)).transform((v) => v ?? fallback)

/**
 * Provider events and send health (docs/invitations.md), merged into the server's env schema. Each
 * provider's setting may also be a 0600 file in DATA_DIR (mail-events-settings.ts); unset, its
 * route answers 404.
 */
export const mailEventsEnv = {
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
}
