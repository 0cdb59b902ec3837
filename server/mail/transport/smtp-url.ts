import { isIP } from 'node:net'

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

function isLoopback(host: string): boolean {
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
