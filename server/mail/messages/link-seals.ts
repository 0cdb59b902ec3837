import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'

/**
 * One key per purpose, each derived from the installation's JWT secret (as loadApiKeys gives it)
 * with HKDF-SHA-256 and a label of its own, so a token made for one purpose is refused by every
 * other, and the same secret on every server sharing the database (and in the CLI) makes and reads
 * the same tokens. The log mask (server/base/log.ts) derives its key the same way.
 */
export interface LinkKeys {
  /** AES-256-GCM: the address inside an unsubscribe link. */
  unsubscribe: Buffer
  /** AES-256-GCM: the address inside a confirmation link. */
  confirm: Buffer
  /** HMAC-SHA-256: the invite code the beta product checks (docs/invitations.md). */
  inviteCode: Buffer
  /** AES-256-GCM: the address inside a test send's unsubscribe link, which changes nothing. */
  testLink: Buffer
  /** HMAC-SHA-256: a test send's invite code, which the documented check refuses. */
  testInviteCode: Buffer
  /** AES-256-GCM: the address inside the link to the person's own page (/your-data). */
  yourData: Buffer
}

export const LINK_KEY_SALT = 'lab-site'
export const LINK_KEY_LABELS = {
  unsubscribe: 'unsubscribe link',
  confirm: 'confirmation link',
  inviteCode: 'invite code',
  testLink: 'test message link',
  testInviteCode: 'test message invite code',
  yourData: 'your data link',
} as const

function derive(jwtSecret: Uint8Array, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', jwtSecret, LINK_KEY_SALT, label, 32))
}

export function linkKeys(jwtSecret: Uint8Array): LinkKeys {
  return {
    unsubscribe: derive(jwtSecret, LINK_KEY_LABELS.unsubscribe),
    confirm: derive(jwtSecret, LINK_KEY_LABELS.confirm),
    inviteCode: derive(jwtSecret, LINK_KEY_LABELS.inviteCode),
    testLink: derive(jwtSecret, LINK_KEY_LABELS.testLink),
    testInviteCode: derive(jwtSecret, LINK_KEY_LABELS.testInviteCode),
    yourData: derive(jwtSecret, LINK_KEY_LABELS.yourData),
  }
}

const NONCE_BYTES = 12
const TAG_BYTES = 16
// An address is at most 254 characters (the database's rule); anything longer is not ours.
const MAX_TOKEN_CHARS = Math.ceil(((NONCE_BYTES + TAG_BYTES + 254 * 4) * 4) / 3)

/**
 * The token in an unsubscribe or confirmation link: the address, lower-cased, sealed with
 * AES-256-GCM under the purpose's key (LinkKeys, above). Nothing is stored: the link names its address
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
