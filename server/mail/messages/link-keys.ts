import { hkdfSync } from 'node:crypto'

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
}

export const LINK_KEY_SALT = 'lab-site'
export const LINK_KEY_LABELS = {
  unsubscribe: 'unsubscribe link',
  confirm: 'confirmation link',
  inviteCode: 'invite code',
  testLink: 'test message link',
  testInviteCode: 'test message invite code',
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
  }
}
