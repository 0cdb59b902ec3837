import type { Queryable } from '../../db/database'
import { notify, OUTBOXES } from '../../outbox/outbox-queries'
import type { MessageKind } from '../messages/compose-message'

/**
 * What the list asks of mail, named once (listmonk's queries.sql): queue an invitation or a test,
 * and cancel what may no longer go, on the mail outbox (private.mail_outbox), each in the caller's
 * transaction so an entry's status and its mail change together. A confirmation is queued by one
 * SQL function, private.queue_confirmation, which the signup trigger calls too. Who may be mailed is
 * private.may_mail (server/waitlist/entry-status.ts).
 */

/**
 * Cancels the pending mail of these entries that the rule refuses now that they are in `status`,
 * and every pending message of the kind `replacing` (a new invitation replaces the one pending).
 */
export async function cancelRefusedMail(
  tx: Queryable,
  ids: readonly string[],
  status: string,
  replacing?: MessageKind,
): Promise<void> {
  if (ids.length === 0) return
  await tx.run(
    `update private.mail_outbox set status = 'cancelled'
      where waitlist_id = any($1::bigint[]) and status = 'pending'
        and (not private.may_mail(kind, $2) or kind = $3)`,
    [ids, status, replacing ?? null],
  )
}

/**
 * One invitation for each entry, in their order, as batch `batchId`, and the sender woken once the
 * transaction commits. Returns the messages' ids, in the same order.
 */
export async function queueInvitations(
  tx: Queryable,
  ids: readonly string[],
  batchId: string,
  messageDomain: string,
): Promise<string[]> {
  if (ids.length === 0) return []
  const queued = await tx.query<{ id: string }>(
    `insert into private.mail_outbox (waitlist_id, kind, priority, message_domain, batch_id)
     select id, 'invitation', 1, $2, $3::bigint from unnest($1::bigint[]) with ordinality as t(id, n) order by n
     returning id::text as id`,
    [ids, messageDomain, batchId],
  )
  await tx.query(`select ${notify(OUTBOXES.mail)}`)
  return queued.map((row) => row.id)
}

/**
 * A test of the invitation to `address`, queued unless the rule refuses it (the address is listed
 * as bounced, unsubscribed or complained, in any letter case), in one statement: the check and the
 * queueing see the same entry. Its row names no entry and keeps the address until it leaves
 * `pending`. Returns the message's id, or the status that refused it.
 */
export async function queueTest(
  db: Queryable,
  address: string,
): Promise<{ id: string } | { refusedBy: string }> {
  const [row] = await db.query<{ id: string | null; status: string | null }>(
    `with listed as (select private.recipient_status(null, $1) as status),
     queued as (
       insert into private.mail_outbox (kind, priority, message_domain, test_address)
       select 'test', 1, coalesce((select message_domain from private.mail_settings), 'localhost'), $1
        where private.may_mail('test', (select status from listed))
       returning id
     ),
     notified as (select id, ${notify(OUTBOXES.mail)}::text as notified from queued)
     select (select id::text from notified) as id, (select status from listed) as status`,
    [address],
  )
  if (row?.id) return { id: row.id }
  if (!row?.status) throw new Error('the test message was not queued')
  return { refusedBy: row.status }
}
