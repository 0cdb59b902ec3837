import { hash } from 'node:crypto'

/** Bits in a day's visitor sketch (private.source_counts.visitor_bits is bit(65536)). */
export const VISITOR_BITS = 65_536

/**
 * Where one visitor marks the day's sketch: a keyed hash (SHA-256 of the day's secret random salt,
 * the day, their address as the rate limiter sees it and their User-Agent), cut to 16 bits. The
 * same visitor lands on the same bit all day on every server sharing the salt; once the salt is
 * deleted nobody can say whose bit is whose, not even with the address in hand. The salt comes
 * first and is secret, so the hash cannot be recomputed without it (one call to Node's one-shot
 * hash: about a microsecond, against several for an HMAC object per request).
 */
export function visitorBit(saltHex: string, day: string, address: string, userAgent: string): number {
  return hash('sha256', `${saltHex}\n${day}\n${address}\n${userAgent}`, 'buffer').readUInt16BE(0)
}
