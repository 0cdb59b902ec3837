import type { Queryable } from '../../db/database'
import { notify, OUTBOXES } from '../../outbox/outbox-queries'
import type { EntryStatus } from './entry-status'

/** A stranger's repeat signup queues a confirmation at most this often for one address. */
export const REPEAT_SIGNUP_GAP_MS = 60 * 60 * 1000

/** What asking for a confirmation again found for a listed address: queued now, one already queued, too soon, or not unconfirmed. */
export type ConfirmAgain =
  | { outcome: 'queued' | 'pending' | 'too-soon' }
  | { outcome: 'not-unconfirmed'; status: EntryStatus }

/**
 * Queues the confirmation of each `unconfirmed` entry named again, in one statement: unless one is
 * still pending, and unless one went (the signup's own, at created_at, or a later one,
 * confirm_sent_at) less than `gapMs` ago. The stamp and the message are written together, and the
 * stamp's own row is checked again under its lock, so two signups at once queue one message. Also
 * restarts the entry's CONFIRM_EXPIRE_DAYS (confirm-expiry.ts), so the new link lives as long as the
 * first did. Returns what each listed address found, by its lower-cased address.
 */
export async function confirmAgain(
  db: Queryable,
  emails: readonly string[],
  gapMs: number,
): Promise<Map<string, ConfirmAgain>> {
  const rows = await db.query<{ email: string; status: EntryStatus; pending: boolean; queued: boolean }>(
    `with entry as (
       select w.id, lower(w.email::text) as email, w.created_at, coalesce(s.status, 'waiting') as status,
              exists (select 1 from private.mail_outbox o
                       where o.waitlist_id = w.id and o.kind = 'confirmation' and o.status = 'pending') as pending
         from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
        where w.email operator(extensions.=) any($1::text[]::extensions.citext[])
     ),
     stamped as (
       update private.entry_status s set confirm_sent_at = now(), updated_at = now()
         from entry
        where s.waitlist_id = entry.id and s.status = 'unconfirmed' and not entry.pending
          and coalesce(s.confirm_sent_at, entry.created_at) <= now() - $2::double precision * interval '1 millisecond'
       returning s.waitlist_id
     ),
     queued as (
       insert into private.mail_outbox (waitlist_id, kind, priority, message_domain)
       select stamped.waitlist_id, 'confirmation', 0, m.message_domain from stamped, private.mail_settings m
       returning waitlist_id
     )
     select entry.email, entry.status, entry.pending,
            exists (select 1 from queued where queued.waitlist_id = entry.id) as queued,
            (select ${notify(OUTBOXES.mail)} from queued limit 1)::text as notified
       from entry`,
    [emails.map((email) => email.trim()), gapMs],
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
 * unconfirmed address gets its confirmation again, at most once an hour. Only on this path: a new
 * signup's insert pays nothing for it. The addresses are the request's (the database names the
 * duplicate only to a role that may read the table, which anon may not); a multi-row insert's rows
 * were each charged to the client's rate limit. A database that fails here already answered.
 */
export async function afterRepeatSignup(db: Queryable, emails: readonly string[]): Promise<void> {
  if (emails.length === 0) return
  await confirmAgain(db, emails, REPEAT_SIGNUP_GAP_MS).catch(() => undefined)
}
