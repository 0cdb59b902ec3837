import { createHmac, hkdfSync, randomBytes } from 'node:crypto'

// Good enough to catch anything that looks like an address, including ones the database refused.
const EMAIL_PATTERN = /[^\s"'<>()[\],;:@/?&=]+@[^\s"'<>()[\],;:/?&=]+/g

// A bare hash of an address can be matched by anyone who hashes a list of known addresses, so the
// mask is keyed. Until the installation's key is set, this process's own random one.
let maskKey: Uint8Array = randomBytes(32)

/** The mask's key for one installation, derived from its JWT secret (never the secret itself). */
export function emailMaskKey(jwtSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', jwtSecret, 'lab-site', 'log mask for e-mail addresses', 32))
}

/**
 * Keys every mask from now on with the installation's JWT secret: the server and the owner's CLI of
 * one installation write the same mask for an address, another installation a different one.
 */
export function keyEmailMask(jwtSecret: Uint8Array): void {
  maskKey = emailMaskKey(jwtSecret)
}

/** One address's mask: 10 hex digits of an HMAC-SHA-256, the same whatever its letter case. */
export function emailMask(email: string, key: Uint8Array = maskKey): string {
  return createHmac('sha256', key).update(email.toLowerCase()).digest('hex').slice(0, 10)
}

/** Replaces every e-mail address with a short keyed hash, so logs can correlate but never reveal. */
export function maskEmails(text: string): string {
  return text.replace(EMAIL_PATTERN, (email) => `<email:${emailMask(email)}>`)
}

export type LogLevel = 'silent' | 'error' | 'info'

export interface Logger {
  info(message: string): void
  error(message: string, error?: unknown): void
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`
  return String(error)
}

export function createLogger(level: LogLevel): Logger {
  return {
    info(message) {
      if (level === 'info') console.log(maskEmails(message))
    },
    error(message, error) {
      if (level === 'silent') return
      console.error(maskEmails(error === undefined ? message : `${message} ${describeError(error)}`))
    },
  }
}
