import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import type { MessageKind } from './compose-message'

export interface MailRow {
  id: string
  kind: MessageKind
  status: 'pending' | 'failed' | 'bounced'
  email: string
  queuedAt: string
  attempts: number
  runAt: string
  lastError: string | null
}

/** Messages not delivered: pending, failed (retries ran out) and bounced, oldest queued first (the owner's CLI). */
export function listUndeliveredMail(db: Queryable): Promise<MailRow[]> {
  return db.query<MailRow>(
    `select o.id::text as id, o.kind, o.status, w.email::text as email, ${isoUtc('o.queued_at')} as "queuedAt",
            o.attempts, ${isoUtc('o.run_at')} as "runAt", o.last_error as "lastError"
       from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
      where o.status in ('pending', 'failed', 'bounced')
      order by array_position(array['pending', 'failed', 'bounced'], o.status), o.queued_at, o.id`,
  )
}

/**
 * Puts every failed message back in the queue, due now, with a fresh retry window. Bounced ones
 * stay: the server refused the address for good (`invite EMAIL --resend` tries one again). Messages
 * to an address that unsubscribed since are cancelled instead. Returns how many were re-queued.
 */
export async function retryFailedMail(db: Queryable): Promise<number> {
  await db.query(
    `update private.mail_outbox o set status = 'cancelled'
      where o.status = 'failed'
        and exists (select 1 from private.entry_status s where s.waitlist_id = o.waitlist_id and s.status in ('unsubscribed', 'complained'))`,
  )
  const { affected } = await db.run(
    `update private.mail_outbox
        set status = 'pending', run_at = now(), queued_at = now(), attempts = 0
      where status = 'failed'`,
  )
  if (affected > 0) await db.query(`select pg_notify('mail_outbox', '')`)
  return affected
}

export interface BatchProgress {
  pending: number
  sent: number
  failed: number
  bounced: number
  /** Unsubscribed or re-invited meanwhile. */
  cancelled: number
}

/** Where a batch of queued messages stands (`invite --wait`, the studio). */
export async function batchProgress(db: Queryable, ids: readonly string[]): Promise<BatchProgress> {
  const rows = await db.query<{ status: keyof BatchProgress; n: number }>(
    `select status, count(*)::int as n from private.mail_outbox where id = any($1::bigint[]) group by status`,
    [ids],
  )
  const progress: BatchProgress = { pending: 0, sent: 0, failed: 0, bounced: 0, cancelled: 0 }
  for (const row of rows) progress[row.status] = row.n
  return progress
}
