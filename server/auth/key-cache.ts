import { LRUCache } from 'lru-cache'
import type { JwtClaims } from '../db/jwt-claims'
import { verifyKey } from './verify-key'

const MAX_ENTRIES = 1000
const CLOCK_SKEW_SECONDS = 30

/**
 * Remembers tokens that verified, as PostgREST's JWT cache does: every page sends the same anon
 * key, and re-checking its HMAC on each request is work for nothing. Only successes are kept, at
 * most MAX_ENTRIES (the least recently used goes first, so other tokens never push the page's key
 * out), each until its expiry plus the clock skew verifyKey allows.
 */
export function cachedVerifier(secret: Uint8Array): (token: string) => Promise<JwtClaims> {
  // An expiry is wall-clock time, as verifyKey reads it: the cache reads the same clock (not the
  // monotonic performance.now()) at every look-up (no 1 ms rounding), so no key outlives its exp.
  const perf = { now: () => Date.now() }
  const verified = new LRUCache<string, JwtClaims>({ max: MAX_ENTRIES, perf, ttlResolution: 0 })
  return async (token) => {
    const hit = verified.get(token)
    if (hit) return hit
    const claims = await verifyKey(secret, token) // throws on any failure; nothing cached then
    const now = Date.now()
    verified.set(token, claims, { ttl: lifetimeMs(claims, now), start: now })
    return claims
  }
}

/** How long a verified key stays valid from `now`: until exp plus the skew; 0 (for ever) with no exp. */
function lifetimeMs(claims: JwtClaims, now: number): number {
  return typeof claims.exp === 'number' ? (claims.exp + CLOCK_SKEW_SECONDS) * 1000 - now : 0
}
