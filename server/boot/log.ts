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

// C0 controls (CR, LF, ESC…), DEL, C1 controls and the two Unicode line breaks: anything that could
// end a log line early or drive a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its job
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
const CONTROLS = new RegExp(CONTROL.source, 'g')
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * One log line per event, whatever a client put in a path, a header or an error message: every
 * control character is written as an escape (`\n`, `\x1b`, `\u2028`), so no line can be forged
 * and no terminal escape reaches the operator's screen. A stack trace becomes one line too.
 */
export function oneLine(text: string): string {
  if (!CONTROL.test(text)) return text
  return text.replace(CONTROLS, (char) => {
    const named = NAMED[char]
    if (named) return named
    const code = char.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`
  })
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
      if (level === 'info') console.log(oneLine(maskEmails(message)))
    },
    error(message, error) {
      if (level === 'silent') return
      console.error(oneLine(maskEmails(error === undefined ? message : `${message} ${describeError(error)}`)))
    },
  }
}
