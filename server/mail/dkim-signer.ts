import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { ConfigError } from '../base/startup-error'

/**
 * DKIM signing by the server itself, for relays that do not sign (issue 66, ADR 120): with
 * DKIM_SELECTOR and DKIM_PRIVATE_KEY (or DKIM_PRIVATE_KEY_FILE), every message the transport sends
 * or rehearses is signed by nodemailer's own DKIM support, `d=` MAIL_FROM's domain, so DMARC's
 * DKIM alignment holds by construction. The preflight compares the key published at the selector
 * with the public half of this one.
 */

/** A selector as DNS labels take it: `s1`, `2026-12`, `mail.lab`. */
export const SELECTOR =
  /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)*$/
export const SELECTOR_PROBLEM = 'must be DNS labels (letters, digits, hyphens), such as s1 or mail2026'
export const KEY_PROBLEM =
  'must be an RSA private key in PEM (-----BEGIN PRIVATE KEY----- …), of at least 1024 bits (2048 advised)'

/**
 * The headers the signature covers: the ones a receiver shows or acts on, RFC 8058's two among
 * them (its §4 asks that both be signed, or a forwarder could add an unsubscribe of its own).
 * nodemailer's default list leaves List-Unsubscribe-Post out.
 */
export const SIGNED_HEADERS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
] as const

/** The server's signing key, as the transport and the preflight use it. */
export interface DkimKey {
  /** MAIL_FROM's domain: `d=`. */
  domain: string
  selector: string
  /**
   * Parsed once: nodemailer hands it to crypto's sign() as given, and a PEM string is parsed again
   * at every message (about 1 ms of a signature's 1.5 on this machine's 2 cores).
   */
  privateKey: KeyObject
  /** The public half as the `p=` of its DNS record: base64 of the SubjectPublicKeyInfo. */
  publicKey: string
}

// An env file carries a PEM on one line with `\n` for its breaks.
const pem = (value: string) => value.replaceAll('\\n', '\n').trim()

function rsaKey(value: string): KeyObject | undefined {
  try {
    const key = createPrivateKey(pem(value))
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    // nodemailer signs with RSA only, and a failed signature there sends the message unsigned.
    return key.asymmetricKeyType === 'rsa' && bits >= 1024 ? key : undefined
  } catch {
    return undefined
  }
}

/** Why the key cannot sign, or undefined when it can. */
export function privateKeyProblem(value: string): string | undefined {
  return rsaKey(value) ? undefined : KEY_PROBLEM
}

/** The `p=` of a DKIM record for this private key. */
export function publicKeyOf(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64')
}

export interface DkimEnv {
  DKIM_SELECTOR?: string
  DKIM_PRIVATE_KEY?: string
  DKIM_PRIVATE_KEY_FILE?: string
}

/**
 * The signing key, or undefined when the server does not sign. A selector without a key, a key
 * without a selector, or a file that holds no usable key stops start-up, naming the variable.
 */
export async function loadDkimKey(
  env: DkimEnv,
  fromDomain: string | undefined,
): Promise<DkimKey | undefined> {
  const { DKIM_SELECTOR: selector, DKIM_PRIVATE_KEY_FILE: file } = env
  if (env.DKIM_PRIVATE_KEY && file)
    throw new ConfigError('Set DKIM_PRIVATE_KEY or DKIM_PRIVATE_KEY_FILE, not both')
  const text = file ? await readKeyFile(file) : env.DKIM_PRIVATE_KEY
  if (!selector && !text) return undefined
  if (!selector)
    throw new ConfigError('DKIM_PRIVATE_KEY is set but DKIM_SELECTOR is not: name the selector published')
  if (!text)
    throw new ConfigError('DKIM_SELECTOR is set but no key: set DKIM_PRIVATE_KEY or DKIM_PRIVATE_KEY_FILE')
  const key = rsaKey(text)
  if (!key) throw new ConfigError(`DKIM_PRIVATE_KEY${file ? `_FILE (${file})` : ''} ${KEY_PROBLEM}`)
  if (!fromDomain)
    throw new ConfigError('DKIM_SELECTOR signs the mail SMTP_URL and MAIL_FROM send: set them too')
  return { domain: fromDomain, selector, privateKey: key, publicKey: publicKeyOf(key) }
}

async function readKeyFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'an error'
    throw new ConfigError(`DKIM_PRIVATE_KEY_FILE ${path} cannot be read (${code})`)
  }
}

/** nodemailer's `dkim` transport option for the key: every message signed, RFC 8058's headers in. */
export function dkimOptions(key: DkimKey) {
  return {
    domainName: key.domain,
    keySelector: key.selector,
    // Its types say a PEM string; crypto's sign(), which receives it untouched, takes a KeyObject too.
    privateKey: key.privateKey as unknown as string,
    headerFieldNames: SIGNED_HEADERS.join(':'),
  }
}
