import type { EntryStatus } from '../../contract/entry-statuses'
import type { Logger } from '../base/log'
import { type Sweep, startSweep } from '../base/periodic-sweep'
import type { Database, Queryable } from '../db/database'
import { COUNTED_SIGNUP, type CountedSignup, takeBackSignups, WAS_COUNTED } from './erased-counts'

/** What asking for a confirmation again found for a listed address: queued now, one already queued, too soon, or not unconfirmed. */
export type ConfirmAgain =
  | { outcome: 'queued' | 'pending' | 'too-soon' }
  | { outcome: 'not-unconfirmed'; status: EntryStatus }

/**
 * Who asks: a repeat signup, which anyone can make and which the per-mailbox limit holds, or the
 * owner (`invite --confirm`), whose word is not limited.
 */
export type ConfirmAsker = 'repeat-signup' | 'owner'

/**
 * Queues the confirmation of each `unconfirmed` entry named again, unless one is still pending for
 * it, through the one function that queues every confirmation (private.queue_confirmation, the
 * signup trigger's too). A repeat signup is held to the limit every confirmation keeps, per mailbox
 * whatever the spelling (private.confirmation_due): at most two in the mailbox's first hour, the
 * second at least a minute after the first, then one an hour; so two spellings of one mailbox in
 * one request queue one. The owner's word is not limited. The stamp restarts the entry's
 * CONFIRM_EXPIRE_DAYS (expireUnconfirmed, below), so the new link lives as long as the first did.
 * Returns what each listed address found, by its lower-cased address.
 */
export async function confirmAgain(
  db: Queryable,
  emails: readonly string[],
  asker: ConfirmAsker,
): Promise<Map<string, ConfirmAgain>> {
  // The call is in the select list, so each entry's confirmation is asked for exactly once.
  const rows = await db.query<{ email: string; status: EntryStatus; pending: boolean; queued: boolean }>(
    `with entry as (
       select w.id, lower(w.email::text) as email, coalesce(s.status, 'waiting') as status,
              exists (select 1 from private.mail_outbox o
                       where o.waitlist_id = w.id and o.kind = 'confirmation' and o.status = 'pending') as pending
         from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
        where w.email operator(extensions.=) any($1::text[]::extensions.citext[])
        order by w.id
     )
     select entry.email, entry.status, entry.pending,
            case when entry.status = 'unconfirmed' and not entry.pending
                 then private.queue_confirmation(entry.id, private.mailbox_key(entry.email), $2::boolean)
                 else false end as queued
       from entry`,
    [emails.map((email) => email.trim()), asker === 'repeat-signup'],
  )
  return new Map(rows.map((row) => [row.email, outcomeOf(row)]))
}

function outcomeOf(row: { status: EntryStatus; pending: boolean; queued: boolean }): ConfirmAgain {
  if (row.queued) return { outcome: 'queued' }
  if (row.status !== 'unconfirmed') return { outcome: 'not-unconfirmed', status: row.status }
  return { outcome: row.pending ? 'pending' : 'too-soon' }
}

/**
 * A repeat signup (the insert's 23505): the answer stays "Already on the waitlist!", and an
 * unconfirmed address gets its confirmation again under the per-mailbox limit: the first repeat at
 * once, so whoever missed a confirmation a stranger caused need not wait an hour. Only on this
 * path: a new signup's insert pays nothing for it. The addresses are the request's (the database
 * names the duplicate only to a role that may read the table, which anon may not); a multi-row
 * insert's rows were each charged to the client's rate limit. A database that fails here already
 * answered.
 */
export async function afterRepeatSignup(db: Queryable, emails: readonly string[]): Promise<void> {
  if (emails.length === 0) return
  await confirmAgain(db, emails, 'repeat-signup').catch(() => undefined)
}

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
      const gone = await tx.query<CountedSignup & { counted: boolean }>(
        `delete from public.waitlist w
          where w.id in (
            select s.waitlist_id from private.entry_status s join public.waitlist e on e.id = s.waitlist_id
             where s.status = 'unconfirmed'
               and coalesce(s.confirm_sent_at, e.created_at) < now() - $1::double precision * interval '1 day'
             limit $2)
          returning ${COUNTED_SIGNUP}, ${WAS_COUNTED} as counted`,
        [days, BATCH],
      )
      // Their signups leave the counts by source too, as an erasure's do (erased-counts.ts).
      await takeBackSignups(
        tx,
        gone.filter((row) => row.counted),
      )
      return gone.length
    })
    total += erased
    if (erased < BATCH) return total
  }
}

/**
 * Every server sweeps the expired unconfirmed entries at start-up and then every `everyMs`
 * (CONFIRM_EXPIRE_CHECK_MS); with several servers, one at a time (an advisory lock). A sweep the
 * database could not finish is tried again at the next turn. `days` 0: entries never expire.
 */
export function startConfirmExpiry(
  db: Database,
  log: Logger,
  options: { days: number; everyMs: number },
): Sweep | undefined {
  if (options.days <= 0) return undefined
  return startSweep(log, options.everyMs, {
    run: () => expireUnconfirmed(db, options.days),
    said: (erased) =>
      `Erased ${erased} unconfirmed entries older than ${options.days} days (CONFIRM_EXPIRE_DAYS)`,
    failed: 'Could not erase the expired unconfirmed entries; trying again later',
  })
}
