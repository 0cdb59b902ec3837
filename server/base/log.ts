import { createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { escapeUnprinted } from '../../contract/clean-text'

// The local part takes every character the database's grammar allows in it (letters, digits and
// .!#$%&'*+/=?^_`{|}~-), and any other that does not separate words in a log line, so an address
// the database refused is masked too; the domain stops at what ends a host name in a URL or a
// quote. Either side may run far: the scan below is linear, never a regular expression that
// backtracks over a long run with no `@` in it.
const LOCAL_STOP = /[\s"<>()[\],;:@]/
const DOMAIN_STOP = /[\s"'<>()[\],;:@/?&=\\]/
// `@` as written, or percent-encoded as in a logged query string (`?email=jane%40example.com`).
const AT_SIGN = /@|%40/gi

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

const isStop = (pattern: RegExp, char: string | undefined) => char === undefined || pattern.test(char)

/** Where the domain after the `@` at `from` ends. */
function domainEnd(text: string, from: number): number {
  let end = from
  while (end < text.length && !isStop(DOMAIN_STOP, text[end])) end++
  // A host name never ends with a dot: one there ends the sentence, not the address.
  while (end > from && text[end - 1] === '.') end--
  return end
}

/**
 * Finds each address around an `@` (or `%40`) and masks it whole. The local part runs back from
 * the `@` to the last separator, never into the previous masked address; a quoted local part
 * ("john doe"@…) is taken whole. Linear however the text runs: a run already scanned back for an
 * earlier `%40` (a literal `@` is a separator itself) is not scanned again.
 */
export function maskEmails(text: string): string {
  if (!text.includes('@') && !/%40/i.test(text)) return text
  let masked = ''
  let done = 0
  let previous = { at: -1, start: -1 }
  // Where the run of local-part characters holding the latest %40 stops: found once per run.
  let runEnd = -1
  for (const found of text.matchAll(AT_SIGN)) {
    const at = found.index
    if (at < done) continue
    if (found[0] !== '@') {
      if (at >= runEnd) {
        runEnd = at + found[0].length
        while (!isStop(LOCAL_STOP, text[runEnd])) runEnd++
      }
      // The run ends at an @: this %40 is inside a local part (a%40b.&c@example.com), and that @
      // masks the address whole.
      if (text[runEnd] === '@') continue
    }
    let start = at
    if (text[at - 1] === '"') {
      const open = text.lastIndexOf('"', at - 2)
      if (open >= done && !/[\r\n]/.test(text.slice(open, at))) start = open
    } else {
      while (start > done && !isStop(LOCAL_STOP, text[start - 1])) {
        start--
        if (start === previous.at && previous.start >= done) start = previous.start
      }
    }
    previous = { at, start }
    if (start === at) continue
    const end = domainEnd(text, at + found[0].length)
    if (end === at + found[0].length) continue
    // Another %40 straight after this "domain" (its dots trimmed): a local part's, as above.
    if (text.slice(end, end + 3).toLowerCase() === '%40') continue
    masked += `${text.slice(done, start)}<email:${emailMask(text.slice(start, end))}>`
    done = end
  }
  return masked + text.slice(done)
}

/**
 * One log line per event, whatever a client put in a path, a header or an error message: every
 * character that is not text (contract/clean-text.ts: CR, LF, ESC and the other controls, the
 * direction controls, the two Unicode line breaks) is written as an escape (`\n`, `\x1b`,
 * `\u2028`), so no line can be forged and no terminal escape reaches the operator's screen. A
 * stack trace becomes one line too.
 */
export function oneLine(text: string): string {
  return escapeUnprinted(text)
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
