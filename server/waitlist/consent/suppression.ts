import { hkdfSync } from 'node:crypto'
import { type Actor, recordAudit } from '../../audit/audit-record'
import type { Database, Queryable } from '../../db/database'
import { LINK_KEY_SALT } from '../../mail/messages/link-seals'
import { shownNetwork } from '../../rate-limit/client-network'

/**
 * Erased stays erased (ADR 098): `remove` and the person's own erasure keep a keyed hash of the
 * address's mailbox (private.suppressed), which `import` skips. The hash is HMAC-SHA-256 over the
 * mailbox key the confirmations use (private.mailbox_key), under a key derived from the JWT secret
 * as the link keys are; the database computes it (private.suppression_hash) from the key's two pads,
 * which every server and the CLI write at start-up. Only the mailbox's owner lifts its hash, by
 * following the confirmation link a new signup of it is always sent (the signup's trigger asks, even
 * with CONFIRM_SIGNUPS off), or the owner of the list, with `unsuppress`: a signup alone may be a
 * stranger's (ADR 104).
 */

const LABEL = 'suppression list'
const BLOCK = 64

/** HMAC's inner and outer pads for the key derived from this JWT secret (RFC 2104). */
export function suppressionPads(jwtSecret: Uint8Array): { inner: Buffer; outer: Buffer } {
  const key = Buffer.alloc(BLOCK)
  Buffer.from(hkdfSync('sha256', jwtSecret, LINK_KEY_SALT, LABEL, 32)).copy(key)
  return {
    inner: Buffer.from(key.map((byte) => byte ^ 0x36)),
    outer: Buffer.from(key.map((byte) => byte ^ 0x5c)),
  }
}

/** Writes the key's pads for the database's hash (a write only when they changed). */
export async function writeSuppressionKey(db: Queryable, jwtSecret: Uint8Array): Promise<void> {
  const { inner, outer } = suppressionPads(jwtSecret)
  await db.query(
    `insert into private.suppression_key as k (singleton, inner_pad, outer_pad) values (true, $1, $2)
     on conflict (singleton) do update set inner_pad = excluded.inner_pad, outer_pad = excluded.outer_pad, updated_at = now()
      where k.inner_pad is distinct from excluded.inner_pad or k.outer_pad is distinct from excluded.outer_pad`,
    [inner, outer],
  )
}

/** Why an address is kept out of imports: the owner removed it, or the person erased it. */
export type SuppressedWhy = 'removed' | 'erased'

/** Keeps the address out of later imports, in the erasure's own transaction. */
export async function suppress(tx: Queryable, email: string, why: SuppressedWhy): Promise<void> {
  await tx.run(
    `insert into private.suppressed (hash, why)
     select h, $2 from private.suppression_hash($1) as h where h is not null
     on conflict (hash) do update set at = now(), why = excluded.why`,
    [email.trim(), why],
  )
}

/**
 * `unsuppress EMAIL`: the address may be imported again, and the record gains a line naming who
 * allowed it (never the address), in the same transaction. True when it was suppressed.
 */
export async function unsuppress(db: Database, email: string, actor: Actor): Promise<boolean> {
  return db.transaction((tx) => lift(tx, email, actor))
}

/** Who lifts a hash by confirming: the mailbox's owner, as the record names them. */
const CONFIRMATION: Actor = { name: 'confirmation: the person' }

/**
 * The person followed the confirmation link sent to `email`: the mailbox is theirs, so its hash
 * goes, and the record says so as it does for `unsuppress`, naming the confirmation and
 * its `network` cut as the logs cut it, never the address; in the confirmation's transaction.
 * While nobody is kept out, one look at an empty table. True when the mailbox was kept out.
 */
export async function liftOnConfirmation(tx: Queryable, email: string, network?: string): Promise<boolean> {
  return lift(tx, email, network ? { ...CONFIRMATION, network: shownNetwork(network) } : CONFIRMATION)
}

async function lift(tx: Queryable, email: string, actor: Actor): Promise<boolean> {
  const { affected } = await tx.run(
    `delete from private.suppressed
      where exists (select from private.suppressed) and hash = private.suppression_hash($1)`,
    [email.trim()],
  )
  if (affected > 0) await recordAudit(tx, actor, { action: 'unsuppress', count: 0 })
  return affected > 0
}

/** How many addresses are kept out of imports, by why. */
export async function suppressedCounts(db: Queryable): Promise<Record<SuppressedWhy, number>> {
  const rows = await db.query<{ why: SuppressedWhy; n: number }>(
    'select why, count(*)::int as n from private.suppressed group by why',
  )
  const counts: Record<SuppressedWhy, number> = { removed: 0, erased: 0 }
  for (const { why, n } of rows) counts[why] = n
  return counts
}
