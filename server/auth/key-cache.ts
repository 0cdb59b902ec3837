import type { JwtClaims } from '../db/api-roles'
import { verifyKey } from './verify-key'

const MAX_ENTRIES = 1000
const CLOCK_SKEW_SECONDS = 30

/**
 * Remembers tokens that verified, as PostgREST's JWT cache does: every page sends the same anon
 * key, and re-checking its HMAC on each request is work for nothing. Only successes are kept,
 * and each hit still honours the token's expiry.
 */
export function cachedVerifier(secret: Uint8Array): (token: string) => Promise<JwtClaims> {
  const verified = new Map<string, JwtClaims>()
  return async (token) => {
    const hit = verified.get(token)
    if (hit) {
      const exp = typeof hit.exp === 'number' ? hit.exp : Number.POSITIVE_INFINITY
      if (Date.now() / 1000 <= exp + CLOCK_SKEW_SECONDS) return hit
      verified.delete(token)
    }
    const claims = await verifyKey(secret, token) // throws on any failure; nothing cached then
    if (verified.size >= MAX_ENTRIES) verified.clear()
    verified.set(token, claims)
    return claims
  }
}
