import { randomUUID } from 'node:crypto'
import { mailWords } from '../../contract/site-config'
import type { Logger } from '../base/log'
import { ConfigError } from '../base/startup-error'
import type { Database } from '../db/database'
import { retryPolicy } from '../outbox/backoff'
import { nextDueIn, OUTBOXES } from '../outbox/outbox-queries'
import type { MailEnv } from './mail-env'
import { composeMessage, type MessageContext } from './messages/compose-message'
import type { LinkKeys } from './messages/link-seals'
import { isReservedName } from './messages/reserved-names'
import { startPreflightResponder } from './preflight/preflight-runs'
import type { AddressRefused } from './queue/mail-queue'
import { type MailSender, startMailSender } from './queue/mail-sender'
import { writeMailSettings } from './queue/mail-settings'
import { type PauseLimits, SendHealthGate } from './queue/send-health'
import type { MailTransport, OutgoingMail } from './smtp-transport'
import type { MailTransportConfig } from './transport-config'

/** CONFIRM_SIGNUPS promises a message to every signup: without a way to send, the server does not start. */
export function checkMailConfig(env: MailEnv, mail: MailTransportConfig): void {
  if (env.CONFIRM_SIGNUPS && !mail)
    throw new ConfigError(
      'Invalid configuration:\n  CONFIRM_SIGNUPS: true needs SMTP_URL and MAIL_FROM (or DATA_DIR/smtp-url and DATA_DIR/mail-from) to send the confirmations',
    )
}

/**
 * Send health, shared by the mail sender (asked before each claim) and the provider events' route
 * (asked as soon as an event bounced or complained an entry): one judge of when a lane pauses.
 */
export function sendHealthOf(env: MailEnv, db: Database, log: Logger): SendHealthGate {
  const limits: PauseLimits = {
    bounceRate: env.MAIL_PAUSE_BOUNCE_RATE,
    complaintRate: env.MAIL_PAUSE_COMPLAINT_RATE,
    minBounces: env.MAIL_PAUSE_MIN_BOUNCES,
    minComplaints: env.MAIL_PAUSE_MIN_COMPLAINTS,
    minNetworks: env.MAIL_PAUSE_MIN_NETWORKS,
  }
  return new SendHealthGate(db, log, limits)
}

/**
 * Writes the database's mail switches (confirmation, the Message-ID domain, a sender present) and
 * what decides a message's content (site address, sender, beta link, pace), and,
 * with SMTP_URL, starts sending the mail outbox. Without it nothing is sent, and queued messages
 * wait for a server that can.
 */
export async function startMail(
  env: MailEnv & { DNS_SERVERS: readonly string[] },
  mail: MailTransportConfig,
  deps: {
    db: Database
    log: Logger
    keys: LinkKeys
    siteUrl: string
    health: SendHealthGate
    /** The waitlist's bounce, for an address a 5xx refused. */
    refused: AddressRefused
    /** WARM_UP_MS: the most the mail's warm-up may take (at most a quarter of a second). */
    warmUpMs: number
  },
): Promise<MailSender | undefined> {
  const { db, log } = deps
  await recordMailSettings(db, env, mail, deps.siteUrl)
  if (!mail) {
    if ((await nextDueIn(db, OUTBOXES.mail)) !== undefined)
      log.info('Mail is queued but SMTP_URL is not set: nothing is sent until a server with SMTP_URL runs')
    return undefined
  }
  const context = { siteUrl: deps.siteUrl, betaUrl: env.BETA_URL ?? mailWords.betaUrl, keys: deps.keys }
  const warmUp = { context, log, ms: Math.min(REHEARSAL_MS, deps.warmUpMs) }
  const transport = await openTransport(env, mail, warmUp)
  const sender = await startMailSender({
    db,
    log,
    transport,
    context,
    perMinute: env.MAIL_PER_MINUTE,
    timeoutMs: env.SMTP_TIMEOUT_MS,
    retry: retryPolicy(env.MAIL_RETRY_BASE_MS, env.MAIL_RETRY_FOR_MS),
    health: deps.health,
    refused: deps.refused,
  })
  // The owner's `preflight` and `invite` ask this server, which has the settings to check with.
  const preflight = await startPreflightResponder(db, log, {
    mailFrom: mail.from.header,
    // Loaded when first asked: mailauth and its parsers are memory a server that is never asked keeps.
    run: async () =>
      (await import('./preflight/preflight')).runPreflight({
        mail,
        providerSelectors: env.DKIM_SELECTORS,
        dnsServers: env.DNS_SERVERS,
        context,
      }),
  })
  sayHowMailGoes(env, mail, deps.siteUrl, log)
  return {
    async stop() {
      await preflight.stop()
      await sender.stop()
    },
  }
}

/** The database's mail switches, and what the owner's CLI and studio preview this server's mail with. */
function recordMailSettings(db: Database, env: MailEnv, mail: MailTransportConfig, siteUrl: string) {
  return writeMailSettings(db, {
    confirmSignups: env.CONFIRM_SIGNUPS && mail !== undefined,
    messageDomain: mail?.from.domain ?? 'localhost',
    senderConfigured: mail !== undefined,
    // So the owner's CLI and studio preview what this server sends, with no settings of their own.
    message: {
      siteUrl,
      betaUrl: env.BETA_URL ?? mailWords.betaUrl,
      from: mail?.from.header ?? null,
      perMinute: env.MAIL_PER_MINUTE,
    },
  })
}

/** The start's lines about mail: the relay, the sender, the pace, DKIM, and what still needs setting. */
function sayHowMailGoes(env: MailEnv, mail: NonNullable<MailTransportConfig>, siteUrl: string, log: Logger) {
  const rate = env.MAIL_PER_MINUTE > 0 ? `at most ${env.MAIL_PER_MINUTE} a minute` : 'with no rate cap'
  log.info(
    `Mail goes through ${mail.smtp.description} from an address at ${mail.from.domain}, ${rate}` +
      (mail.dkim ? `, signed with DKIM (selector ${mail.dkim.selector})` : '') +
      (env.CONFIRM_SIGNUPS ? '; new signups get a confirmation message' : ''),
  )
  if (!siteUrl.startsWith('https://'))
    log.info(
      `Links in mail point to ${siteUrl}: set SITE_URL to the site's https address before inviting anyone`,
    )
  warnOfPlaceholders(mail, log)
}

/**
 * The SMTP transport, its path rehearsed before the first message goes out (WARM_UP_MS, ADR 111):
 * at a launch the owner's invitations leave in its first second, and cold, building them cost the
 * signups beside them a third of their p99.
 */
async function openTransport(
  env: MailEnv,
  mail: NonNullable<MailTransportConfig>,
  warmUp: { context: MessageContext; log: Logger; ms: number },
): Promise<MailTransport> {
  // Loaded only where mail is sent: nodemailer is some 10 MiB of a server's memory.
  const { buildInMemory, createSmtpTransport } = await import('./smtp-transport')
  const transport = createSmtpTransport(mail.smtp, mail.from, {
    timeoutMs: env.SMTP_TIMEOUT_MS,
    maxConnections: 4,
    dkim: mail.dkim,
  })
  const messages = rehearsalMessages(warmUp.context, mail.from.domain)
  // Signed as they will be: the signature is part of the path the rehearsal warms.
  const built = await buildInMemory(messages, mail.from, warmUp.ms, mail.dkim)
  warmUp.log.info(`Warmed up the mail: ${built} messages built in memory (none sent)`)
  return transport
}

/** The mail's rehearsal: this many messages, or a quarter of a second, whichever ends first. */
const MAIL_REHEARSAL = 200
const REHEARSAL_MS = 250

/** Confirmations and invitations in turn, to made-up addresses, as the sender composes them. */
function* rehearsalMessages(context: MessageContext, messageDomain: string): Generator<OutgoingMail> {
  for (let n = 0; n < MAIL_REHEARSAL; n++) {
    const kind = n % 2 === 0 ? 'confirmation' : 'invitation'
    const email = `rehearsal-${n}@example.com`
    yield composeMessage(context, { kind, uuid: randomUUID(), email, queuedAt: new Date(), messageDomain })
  }
}

/**
 * Said once at start, where mail can go: a MAIL_FROM on a reserved domain, which no provider
 * verifies and many receivers refuse (a warning: a test relay may well take it). The beta link
 * still the shipped placeholder is named with the site config's other examples, at start
 * (server/boot/shipped-examples.ts).
 */
function warnOfPlaceholders(mail: NonNullable<MailTransportConfig>, log: Logger): void {
  if (isReservedName(mail.from.domain))
    log.info(
      `MAIL_FROM is at ${mail.from.domain}, a reserved example domain: receivers will refuse or bin the mail. ` +
        "Set MAIL_FROM to an address on the lab's own domain, verified with the provider (SPF, DKIM, DMARC).",
    )
}
