import type { Database } from '../db/database'

// Two servers on one database sweep one at a time; the other skips its turn.
const EXPIRY_LOCK_KEY = 7_305_871_115
const BATCH = 1_000

/**
 * Erases the `unconfirmed` entries whose last confirmation (the signup's, or a later one) is more
 * than `days` old, as `remove` erases: the waitlist row goes, and with it (the foreign keys'
 * cascade) its status, its messages and its webhook deliveries, so its links find nothing. In
 * batches of 1,000, each its own short transaction. Returns how many went; 0 when another server
 * holds the sweep.
 */
export async function expireUnconfirmed(db: Database, days: number): Promise<number> {
  let total = 0
  for (;;) {
    const erased = await db.transaction(async (tx) => {
      const [lock] = await tx.query<{ got: boolean }>('select pg_try_advisory_xact_lock($1) as got', [
        EXPIRY_LOCK_KEY,
      ])
      if (!lock?.got) return 0
      const { affected } = await tx.run(
        `delete from public.waitlist w
          where w.id in (
            select s.waitlist_id from private.entry_status s join public.waitlist e on e.id = s.waitlist_id
             where s.status = 'unconfirmed'
               and coalesce(s.confirm_sent_at, e.created_at) < now() - $1::double precision * interval '1 day'
             limit $2)`,
        [days, BATCH],
      )
      return affected
    })
    total += erased
    if (erased < BATCH) return total
  }
}
