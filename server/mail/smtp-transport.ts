import nodemailer from 'nodemailer'
import { plainLine } from '../../contract/clean-text'
import { type DkimKey, dkimOptions } from './dkim-signer'
import type { MailFrom } from './transport-config'
import { type SmtpConfig, withoutPassword } from './transport-config'

/**
 * What became of one message. `sent`: the server accepted it (250 after DATA). `permanent`: the
 * server refused this recipient or this message for good (5xx to RCPT TO or DATA): never retried.
 * `transient`: anything else (a 4xx, refused or lost connection, a time-out, or a 5xx to the
 * connection, AUTH or MAIL FROM, which says the configuration is wrong, not the address): retried.
 */
export type SendOutcome =
  | { status: 'sent'; response: string }
  | { status: 'permanent'; error: string }
  | { status: 'transient'; error: string }

export interface MailTransport {
  /** Sends one message; never throws. `signal` abandons it (a time-out, or the server stopping). */
  send(mail: OutgoingMail, signal: AbortSignal): Promise<SendOutcome>
  close(): void
}

interface SmtpError {
  code?: string
  responseCode?: number
  command?: string
  message?: string
}

// Only the recipient's or the message's own refusal is permanent; a 5xx earlier in the session
// would otherwise mark every address bounced for one wrong password.
const ABOUT_THE_RECIPIENT = new Set(['RCPT TO', 'DATA'])

export function classifySmtpError(error: unknown, config?: SmtpConfig): SendOutcome {
  const { code, responseCode, command, message } = (error ?? {}) as SmtpError
  const text = withoutPassword(
    `${code ?? 'error'}${command ? ` (${command})` : ''}: ${message ?? String(error)}`,
    config,
  )
  // The receiving server's words: a stranger's, kept as one plain line (ADR 082).
  const short = plainLine(text).slice(0, 300)
  if (responseCode !== undefined && responseCode >= 500 && command && ABOUT_THE_RECIPIENT.has(command))
    return { status: 'permanent', error: short }
  return { status: 'transient', error: short }
}

/**
 * nodemailer over SMTP, pooled: up to `maxConnections` connections kept open between messages.
 * Built from the parsed SMTP_URL, never from the URL itself, so no error can quote it.
 */
export function createSmtpTransport(
  config: SmtpConfig,
  from: MailFrom,
  options: { timeoutMs: number; maxConnections: number; dkim?: DkimKey },
): MailTransport {
  const transport = nodemailer.createTransport({
    ...signing(options.dkim),
    pool: true,
    maxConnections: options.maxConnections,
    maxMessages: 1_000,
    host: config.host,
    port: config.port,
    secure: config.secure,
    requireTLS: config.requireTLS,
    ignoreTLS: config.ignoreTLS,
    auth: config.auth,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    logger: false,
    debug: false,
  })
  return {
    async send(mail, signal) {
      try {
        const info = await transport.sendMail({ ...nodemailerMessage(mail, from), signal })
        return { status: 'sent', response: String(info.response ?? '') }
      } catch (error) {
        return classifySmtpError(error, config)
      }
    },
    close: () => transport.close(),
  }
}

/**
 * Builds each message into memory as the SMTP transport would before sending it (nodemailer's
 * stream transport: the same MIME composer), and keeps none: the mail path's rehearsal before the
 * first message of a launch goes out (ADR 111). Stops after withinMs; resolves to how many it built.
 */
export async function buildInMemory(
  messages: Iterable<OutgoingMail>,
  from: MailFrom,
  withinMs: number,
  dkim?: DkimKey,
) {
  const deadline = performance.now() + withinMs
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, ...signing(dkim) })
  let built = 0
  for (const mail of messages) {
    if (performance.now() >= deadline) break
    await transport.sendMail(nodemailerMessage(mail, from))
    built++
  }
  transport.close()
  return built
}

/** Signs every message the transport sends or builds when the server has a key (dkim-signer.ts). */
const signing = (dkim: DkimKey | undefined) => (dkim ? { dkim: dkimOptions(dkim) } : {})

/**
 * One message as the relay would receive it, built in memory with the transport's own options
 * (signature included): what the preflight reads its headers from.
 */
export async function buildMessage(mail: OutgoingMail, from: MailFrom, dkim?: DkimKey): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, ...signing(dkim) })
  try {
    const info = await transport.sendMail(nodemailerMessage(mail, from))
    return info.message as Buffer
  } finally {
    transport.close()
  }
}

/** A message as nodemailer takes it, sent or built in memory: the same fields either way. */
function nodemailerMessage(mail: OutgoingMail, from: MailFrom) {
  const { to, subject, text, html, messageId, headers } = mail
  const envelope = { from: from.bounceAddress, to }
  return { from: from.header, to, subject, text, html, messageId, headers, envelope }
}

/** One message as the transport sends it; From is the transport's own (MAIL_FROM). */
export interface OutgoingMail {
  to: string
  subject: string
  text: string
  html: string
  /** `<left@domain>`: the caller keeps it the same on every attempt of one message. */
  messageId: string
  /** Further headers, such as List-Unsubscribe. */
  headers: Record<string, string>
}
