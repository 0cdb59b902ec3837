import { z } from 'zod'
import { optional } from '../../base/optional-env'

/** The invitation variables, merged into the server's env schema. */
export const invitationEnv = {
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
}
