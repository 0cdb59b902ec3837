import { createHmac } from 'node:crypto'

/** Bits in a day's visitor sketch (private.source_counts.visitor_bits is bit(65536)). */
export const VISITOR_BITS = 65_536

/**
 * Where one visitor marks the day's sketch: a keyed hash (HMAC-SHA-256, keyed with the day's
 * random salt) of their address as the rate limiter sees it, their User-Agent and the day, cut to
 * 16 bits. The same visitor lands on the same bit all day on every server sharing the salt; once
 * the salt is deleted nobody can say whose bit is whose, not even with the address in hand.
 */
export function visitorBit(salt: Uint8Array, day: string, address: string, userAgent: string): number {
  const digest = createHmac('sha256', salt).update(`${day}\n${address}\n${userAgent}`).digest()
  return digest.readUInt16BE(0)
}
