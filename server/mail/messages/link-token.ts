import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

const NONCE_BYTES = 12
const TAG_BYTES = 16
// An address is at most 254 characters (the database's rule); anything longer is not ours.
const MAX_TOKEN_CHARS = Math.ceil(((NONCE_BYTES + TAG_BYTES + 254 * 4) * 4) / 3)

/**
 * The token in an unsubscribe or confirmation link: the address, lower-cased, sealed with
 * AES-256-GCM under the purpose's key (link-keys.ts). Nothing is stored: the link names its address
 * without showing it (a log or a proxy sees only ciphertext), a changed byte fails the tag, and the
 * token still works after the list is exported and imported elsewhere with the same JWT secret.
 */
export function sealAddress(key: Buffer, email: string): string {
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, nonce)
  const sealed = Buffer.concat([cipher.update(email.toLowerCase(), 'utf8'), cipher.final()])
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url')
}

/** The address a token was sealed for, or undefined when it was not made with this key (forged, cut, changed). */
export function openAddress(key: Buffer, token: string): string | undefined {
  if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined
  const bytes = Buffer.from(token, 'base64url')
  if (bytes.length <= NONCE_BYTES + TAG_BYTES) return undefined
  // base64url has more than one spelling of the last bits; only the canonical one is ours.
  if (bytes.toString('base64url') !== token) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES))
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
    const plain = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, -TAG_BYTES)), decipher.final()])
    return plain.toString('utf8')
  } catch {
    return undefined
  }
}
