import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The invite code in the beta link: 50 characters of base64url over 37 bytes,
 *   version (1 byte, 1) | invitation id (16 bytes, a UUID) | issued at (4 bytes, Unix seconds, big-endian)
 *   | the first 16 bytes of HMAC-SHA-256(invite-code key, the 21 bytes before).
 * The beta product checks it offline with the key `npm run waitlist -- keys` prints (docs/invitations.md
 * shows the check in a few lines); a forged or altered code fails the HMAC. The same invitation
 * always gives the same code, so a retried message carries the same one.
 */
const VERSION = 1
const SIGNED_BYTES = 21
const MAC_BYTES = 16

export interface InviteCode {
  /** The invitation's UUID: one code per invitation, so the beta product can accept each once. */
  invitationId: string
  issuedAt: Date
}

const mac = (key: Buffer, signed: Buffer) =>
  createHmac('sha256', key).update(signed).digest().subarray(0, MAC_BYTES)

export function makeInviteCode(key: Buffer, invitationId: string, issuedAt: Date): string {
  const signed = Buffer.alloc(SIGNED_BYTES)
  signed[0] = VERSION
  Buffer.from(invitationId.replaceAll('-', ''), 'hex').copy(signed, 1)
  signed.writeUInt32BE(Math.floor(issuedAt.getTime() / 1000), 17)
  return Buffer.concat([signed, mac(key, signed)]).toString('base64url')
}

/** The invitation a code stands for, or undefined when the code was not made with this key. */
export function checkInviteCode(key: Buffer, code: string): InviteCode | undefined {
  if (!/^[A-Za-z0-9_-]{50}$/.test(code)) return undefined
  const bytes = Buffer.from(code, 'base64url')
  if (bytes.length !== SIGNED_BYTES + MAC_BYTES || bytes[0] !== VERSION) return undefined
  // The last character has spare bits: a code spelled any other way than ours was altered.
  if (bytes.toString('base64url') !== code) return undefined
  const signed = bytes.subarray(0, SIGNED_BYTES)
  if (!timingSafeEqual(mac(key, signed), bytes.subarray(SIGNED_BYTES))) return undefined
  const hex = signed.subarray(1, 17).toString('hex')
  return {
    invitationId: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    issuedAt: new Date(signed.readUInt32BE(17) * 1000),
  }
}
