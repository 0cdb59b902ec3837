import { createHash, randomBytes } from 'node:crypto'

/**
 * A secret handed to a browser (an enrolment link's, a session cookie's): 32 random bytes, and the
 * SHA-256 the database keeps instead, so a copy of the database opens no session and no link.
 */
export function newToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: tokenHash(token) }
}

export const tokenHash = (token: string): Buffer => createHash('sha256').update(token).digest()

/** Only what newToken makes: 43 base64url characters. Anything else is no token, and no query. */
export const looksLikeToken = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value)
