import type { Queryable } from '../db/database'
import { notify, OUTBOXES } from '../outbox/outbox-queries'
import type { EntryStatus } from '../waitlist/entry-status'

/** The statuses whose address gets no mail of any kind, a test included. */
export const NO_MAIL_STATUSES = ['unsubscribed', 'complained', 'bounced'] as const satisfies EntryStatus[]
type NoMailStatus = (typeof NO_MAIL_STATUSES)[number]

/** What became of a test send: queued (its outbox row's id, for `--wait`), or refused and why. */
export type TestSend = { queued: string } | { refused: NoMailStatus; reason: string }

/** Why a test send to an address listed with this status was refused: one line, the CLI's and the studio's. */
export function noTestSendReason(address: string, status: NoMailStatus): string {
  return (
    `No test sent: ${address} is ${status} on the waitlist, and no mail ever goes to an address that ` +
    'unsubscribed, complained or bounced. Send the test to another address.'
  )
}

/**
 * `invite --test ADDRESS` and the studio's "Send me a test": the invitation, as the next invitee
 * gets it, queued for the running server to send to any address, unless that address is listed as
 * unsubscribed, complained or bounced (in any letter case): the person asked for no mail, or their
 * server refused it, and a test is mail too. Both doors come through here, so neither can skip it.
 * The outbox row names no entry (nothing is added to the list) and is of kind `test`, which the
 * sender composes as an invitation whose links are sealed with the test keys: its unsubscribe link
 * changes nothing and its invite code fails the documented check (link-keys.ts). It takes its turn
 * in the invitations' lane. One statement: the check and the queueing see the same entry.
 */
export async function queueTestInvitation(db: Queryable, address: string): Promise<TestSend> {
  const [row] = await db.query<{ id: string | null; refused: NoMailStatus | null }>(
    `with refused as (
       select s.status from public.waitlist w join private.entry_status s on s.waitlist_id = w.id
        where w.email operator(extensions.=) $1::text::extensions.citext and s.status = any($2::text[])
     ),
     queued as (
       insert into private.mail_outbox (kind, priority, message_domain, test_address)
       select 'test', 1, coalesce((select message_domain from private.mail_settings), 'localhost'), $1
        where not exists (select 1 from refused)
       returning id
     ),
     notified as (select id, ${notify(OUTBOXES.mail)}::text as notified from queued)
     select (select id::text from notified) as id, (select status from refused) as refused`,
    [address, NO_MAIL_STATUSES],
  )
  if (row?.refused) return { refused: row.refused, reason: noTestSendReason(address, row.refused) }
  if (!row?.id) throw new Error('the test message was not queued')
  return { queued: row.id }
}
