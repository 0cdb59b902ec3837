import { isIP } from 'node:net'
import { join } from 'node:path'
import { ConfigError } from '../base/startup-error'
import { readSecretFile } from '../db/secret-file'
import { type DkimEnv, type DkimKey, loadDkimKey } from './dkim-signer'

/** The files read when the variable is unset: one line each, mode 0600, as DATA_DIR/jwt-secret. */
export const SMTP_URL_FILE = 'smtp-url'
export const MAIL_FROM_FILE = 'mail-from'

/**
 * How to send: both set, or neither (no SMTP_URL: nothing can be sent, and every sender says so);
 * with the key the server signs with, when it signs (dkim-signer.ts).
 */
export type MailTransportConfig = { smtp: SmtpConfig; from: MailFrom; dkim?: DkimKey } | undefined

/**
 * SMTP_URL and MAIL_FROM from the environment, else from their secret files in DATA_DIR. A bad
 * value is a ConfigError naming the variable or the file, never quoting it.
 */
export async function loadMailTransportConfig(
  env: { SMTP_URL?: string; MAIL_FROM?: string; MAIL_RETURN_PATH?: string; DATA_DIR: string } & DkimEnv,
): Promise<MailTransportConfig> {
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
  const bounce = env.MAIL_RETURN_PATH ? bounceTo(env.MAIL_RETURN_PATH) : {}
  const dkim = await loadDkimKey(env, from.domain)
  return { smtp: parseSmtpUrl(smtpUrl), from: { ...from, ...bounce }, ...(dkim ? { dkim } : {}) }
}

/** MAIL_FROM: the sender, as `Name <address>` or a bare address. */
export interface MailFrom {
  /** As the From header carries it. */
  header: string
  address: string
  /** The address's domain: the right part of every Message-ID. */
  domain: string
  /** The envelope sender, where bounces go: MAIL_RETURN_PATH, else the address. */
  bounceAddress: string
  /** Its domain: SPF and MX are read there. */
  bounceDomain: string
}

// One address without spaces or angle brackets; the provider checks the rest.
const ADDRESS = /^[^\s<>@"]+@([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)$/
export const BARE_ADDRESS = ADDRESS

/** Reads MAIL_FROM, or undefined when it is not `Name <address>` nor an address. */
export function parseMailFrom(value: string): MailFrom | undefined {
  const trimmed = value.trim()
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed)
  const address = (named ? named[2] : trimmed)?.trim() ?? ''
  const match = ADDRESS.exec(address)
  if (!match?.[1]) return undefined
  const name = named?.[1]?.trim().replace(/^"(.*)"$/, '$1')
  if (name && /[\r\n"<>]/.test(name)) return undefined
  const domain = match[1].toLowerCase()
  return { header: name ? `"${name}" <${address}>` : address, address, domain, ...bounceTo(address) }
}

/** The envelope sender and its domain. */
export function bounceTo(address: string): Pick<MailFrom, 'bounceAddress' | 'bounceDomain'> {
  return { bounceAddress: address, bounceDomain: (address.split('@').pop() ?? '').toLowerCase() }
}

/** Where and how to reach the SMTP server, read from SMTP_URL. The password is only in `auth`. */
export interface SmtpConfig {
  host: string
  port: number
  /** smtps://: TLS from the first byte (port 465 by default). */
  secure: boolean
  /** smtp:// off loopback: STARTTLS is mandatory, a server that does not offer it is an error. */
  requireTLS: boolean
  /** smtp:// to loopback: the message never leaves the machine, so no STARTTLS is attempted. */
  ignoreTLS: boolean
  auth?: { user: string; pass: string }
  /**
   * For the logs: scheme, host and port, and the user's first two characters (some relays' user is
   * a token, or an address); never the password. No `user@host` in it, which reads as an address.
   */
  description: string
}

/** Why SMTP_URL is unusable, in words that never quote it (it may carry a password). */
export class SmtpUrlError extends Error {
  override name = 'SmtpUrlError'
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '')
  if (bare.toLowerCase() === 'localhost') return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return isIP(bare) === 6 && (bare === '::1' || bare === '0:0:0:0:0:0:0:1')
}

/** The user as the logs show it: enough to tell which account, not enough to be its name or token. */
const maskedUser = (user: string) => `${user.length > 3 ? user.slice(0, 2) : ''}***`

function decoded(part: string, what: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    throw new SmtpUrlError(`SMTP_URL: the ${what} is not valid percent-encoding`)
  }
}

/**
 * Reads smtp://user:password@host:port or smtps://…; user and password percent-encoded as in any
 * URL. TLS is required to any host that is not loopback: smtps, or STARTTLS with requireTLS.
 */
export function parseSmtpUrl(value: string): SmtpConfig {
  if (!URL.canParse(value))
    throw new SmtpUrlError('SMTP_URL is not a URL such as smtps://user:pass@smtp.example.com')
  const url = new URL(value)
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new SmtpUrlError('SMTP_URL must start with smtp:// or smtps://')
  if (!url.hostname) throw new SmtpUrlError('SMTP_URL names no host')
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    throw new SmtpUrlError('SMTP_URL takes no path or query: smtp[s]://user:pass@host[:port]')
  const secure = url.protocol === 'smtps:'
  const loopback = isLoopback(url.hostname)
  const user = decoded(url.username, 'user name')
  const pass = decoded(url.password, 'password')
  const port = url.port ? Number(url.port) : secure ? 465 : 587
  const scheme = secure ? 'smtps' : 'smtp'
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    secure,
    requireTLS: !secure && !loopback,
    ignoreTLS: !secure && loopback,
    auth: user ? { user, pass } : undefined,
    description: `${scheme}://${url.host}${url.port ? '' : `:${port}`}${user ? ` as ${maskedUser(user)}` : ''}`,
  }
}

/** The text with every occurrence of the password (raw or percent-encoded) replaced. */
export function withoutPassword(text: string, config: SmtpConfig | undefined): string {
  const pass = config?.auth?.pass
  if (!pass) return text
  return text.replaceAll(pass, '***').replaceAll(encodeURIComponent(pass), '***')
}

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
