import { type Actor, recordAudit } from '../audit/audit-record'
import type { Database } from '../db/database'
import { dropDeliveries, queueErased } from '../webhooks/webhook-events'
import { type SuppressedWhy, suppress } from './consent/suppression'
import { countErasure } from './erased-counts'

/**
 * An erasure (GDPR Art. 17), in one transaction, whoever asks: the owner's `remove` (and the
 * studio's), or the person from their own page. The waitlist row goes, and with it (the foreign
 * keys' cascade) its status, answers kept and proposed, consent record, history and messages, so
 * pending mail is cancelled; the address's pending notifications are dropped first, while they can
 * still be found by it. Then the address's keyed hash is kept so an import never brings it back
 * (ADR 098), entry.erased is queued with the address so the lab erases its copies elsewhere
 * (Art. 19), and the team's record gains a line naming `actor`, never the address (its earlier lines
 * about the entry lose their link to it: audit_entries goes with the row). The figures keep counts
 * of it, never who (erased-counts.ts): its batch's, and its signup taken off its source's. Returns the address as
 * it was stored (its own letter case), or undefined if none.
 */
export async function eraseEntry(
  db: Database,
  email: string,
  why: SuppressedWhy,
  actor: Actor,
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    // citext's case-insensitive `=` lives in `extensions` (as on Supabase).
    await tx.exec('set local search_path = public, extensions')
    await dropDeliveries(tx, email)
    // The counts it leaves (its batch's, its source's signup), while its rows can still be read.
    await countErasure(tx, email.trim())
    const [row] = await tx.query<{ email: string }>(
      'delete from public.waitlist where email = $1::citext returning email::text',
      [email.trim()],
    )
    if (!row) return undefined
    await suppress(tx, row.email, why)
    await queueErased(tx, row.email)
    await recordAudit(tx, actor, { action: why === 'removed' ? 'remove' : 'erase', count: 1 })
    return row.email
  })
}
