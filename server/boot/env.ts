import * as z from 'zod'
import { ORIGIN_TRIAL_TOKEN, ORIGIN_TRIAL_TOKEN_RULE } from '../../contract/origin-trial'
import { signatureAgentsEnv } from '../agents/trust-list'
import { backupEnv } from '../backup/backup-env'
import { optional } from '../base/optional-env'
import { ConfigError } from '../base/startup-error'
import { mailEnv } from '../mail/mail-env'
import { addressPolicyEnv, domainListsOverlap } from '../waitlist/address-policy/address-policy-env'
import { webhookEnv } from '../webhooks/webhook-env'
import { corsEnv } from './cors-env'
import { defaultDataDir } from './default-data-dir'

const EnvSchema = z.object({
  PORT: optional(z.coerce.number().int().min(0).max(65535)).transform((v) => v ?? 3000),
  HOST: optional(z.string().min(1)).transform((v) => v ?? '127.0.0.1'),
  /** Default: ./data, or as root where PostgreSQL's account can reach it (default-data-dir.ts). */
  DATA_DIR: optional(z.string().min(1)),
  DATABASE_URL: optional(
    z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string'),
  ),
  JWT_SECRET: optional(z.string().min(32, 'must be at least 32 characters (HS256 needs 256 bits)')),
  /** The public address of the site, for canonical links; defaults to the local one. */
  SITE_URL: optional(
    z
      .url({ protocol: /^https?$/ })
      .refine(
        (value) => !/[?#"'<>&\s]/.test(value),
        'must be a plain address such as https://lab.example.com',
      ),
  ),
  RATE_LIMIT_PER_MINUTE: optional(z.coerce.number().int().min(0)).transform((v) => v ?? 10),
  /** Writes one address may make back to back before the per-minute rate applies. */
  RATE_LIMIT_BURST: optional(z.coerce.number().int().min(1)).transform((v) => v ?? 5),
  /** Requests in flight towards the database before new ones are answered 503 + Retry-After. */
  DB_QUEUE_LIMIT: optional(z.coerce.number().int().min(1)).transform((v) => v ?? 1000),
  /** Time a client has to send its request headers, and its whole request, in milliseconds. */
  HEADERS_TIMEOUT_MS: optional(z.coerce.number().int().min(100)).transform((v) => v ?? 10_000),
  REQUEST_TIMEOUT_MS: optional(z.coerce.number().int().min(100)).transform((v) => v ?? 30_000),
  /** Always send Strict-Transport-Security (else only for HTTPS seen through a trusted proxy). */
  HSTS: optional(z.stringbool()).transform((v) => v ?? false),
  /** The hosted Supabase project the build calls, if any: allowed in the page's CSP connect-src. */
  VITE_SUPABASE_URL: optional(z.url()),
  /** Header that carries the client's address behind a proxy, e.g. x-forwarded-for. Never trusted unless set. */
  TRUST_PROXY_HEADER: optional(z.string().min(1).toLowerCase()),
  LOG_LEVEL: optional(z.enum(['silent', 'error', 'info'])).transform((v) => v ?? 'info'),
  /** Count visits to / and signups by source (docs/analytics.md): no cookie, nothing about anyone stored. */
  COUNT_SOURCES: optional(z.stringbool()).transform((v) => v ?? true),
  /** How often those counts are written, in milliseconds: the most a crash can lose. */
  COUNT_SOURCES_FLUSH_MS: optional(z.coerce.number().int().min(100).max(60_000)).transform((v) => v ?? 5000),
  /**
   * The longest the warm-up may take, in milliseconds: once listening, page loads and signups over
   * loopback through the app, so a launch's first second meets a warm server; /healthz answers 503
   * until it is done (ADR 111). Never off: a test may make it short.
   */
  WARM_UP_MS: optional(z.coerce.number().int().min(1).max(10_000)).transform((v) => v ?? 500),
  /** Chrome's origin-trial token for WebMCP on the site's origin: sent with '/' (ADR 052). */
  WEBMCP_ORIGIN_TRIAL_TOKEN: optional(z.string().regex(ORIGIN_TRIAL_TOKEN, ORIGIN_TRIAL_TOKEN_RULE)),
  ...webhookEnv,
  ...mailEnv,
  ...corsEnv,
  ...addressPolicyEnv,
  ...backupEnv,
  ...signatureAgentsEnv,
})

// Node needs the whole-request timeout to be at least the headers timeout.
const CheckedEnvSchema = EnvSchema.refine((env) => env.REQUEST_TIMEOUT_MS >= env.HEADERS_TIMEOUT_MS, {
  path: ['REQUEST_TIMEOUT_MS'],
  message: 'must be at least HEADERS_TIMEOUT_MS',
})
  .refine((env) => !env.BACKUP_URL || env.BACKUP_KEY, {
    path: ['BACKUP_KEY'],
    message:
      'BACKUP_URL needs it: everything that leaves the machine is encrypted with it (openssl rand -base64 32)',
  })
  .refine((env) => domainListsOverlap(env).length === 0, {
    path: ['ALLOWED_DOMAINS'],
    message: 'names a domain BLOCKED_DOMAINS names too: say which one it is',
  })
  .transform((env) => ({ ...env, DATA_DIR: env.DATA_DIR ?? defaultDataDir(env.DATABASE_URL).dataDir }))

export { ConfigError }

export type ServerEnv = z.infer<typeof CheckedEnvSchema>

/** Reads and checks every variable at once, so one start-up tells the operator everything that is wrong. */
export function loadServerEnv(source: Record<string, string | undefined> = process.env): ServerEnv {
  const parsed = CheckedEnvSchema.safeParse(source)
  if (parsed.success) return parsed.data
  const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`)
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}\nSee .env.example for every variable.`)
}
