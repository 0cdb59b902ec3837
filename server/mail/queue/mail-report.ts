import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { listUndelivered, OUTBOXES, retryFailed, type UndeliveredRow } from '../../outbox/outbox-queries'
import type { MessageKind } from '../messages/compose-message'

export interface MailRow extends UndeliveredRow {
  kind: MessageKind
  status: 'pending' | 'failed' | 'bounced'
  queuedAt: string
}

/** Messages not delivered: pending, failed (retries ran out) and bounced, oldest queued first (the owner's CLI). */
export function listUndeliveredMail(db: Queryable): Promise<MailRow[]> {
  return listUndelivered<MailRow>(db, OUTBOXES.mail, {
    statuses: ['pending', 'failed', 'bounced'],
    columns: `o.kind, ${isoUtc('o.queued_at')} as "queuedAt"`,
    // A test send names no entry: `deliveries` lists the list's own mail.
    join: 'join',
    order: 'o.queued_at, o.id',
  })
}

/**
 * Puts every failed message back in the queue, as retryFailed does. Bounced ones stay: the server
 * refused the address for good (`invite EMAIL --resend` tries one again). A message the rule now
 * refuses (private.may_mail: its entry bounced, unsubscribed or complained since, or moved on) is
 * cancelled instead, and so is a failed test, whose address is forgotten (`invite --test` sends
 * another). Returns how many were re-queued.
 */
export async function retryFailedMail(db: Queryable): Promise<number> {
  await db.query(
    `update private.mail_outbox o set status = 'cancelled'
      where o.status = 'failed'
        and (o.kind = 'test' or not private.may_mail(o.kind, private.recipient_status(o.waitlist_id, null)))`,
  )
  return retryFailed(db, OUTBOXES.mail)
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
