import type { Queryable } from '../../db/database'
import { notify, OUTBOXES } from '../../outbox/outbox-queries'

/**
 * `invite --test ADDRESS` and the studio's "Send me a test": the invitation, as the next invitee
 * gets it, queued for the running server to send to any address. The outbox row names no entry
 * (nothing is added to the list) and is of kind `test`, which the sender composes as an invitation
 * whose links are sealed with the test keys: its unsubscribe link changes nothing and its invite
 * code fails the documented check (link-keys.ts). It takes its turn in the invitations' lane.
 * Returns the outbox row's id, for `--wait`.
 */
export async function queueTestInvitation(db: Queryable, address: string): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `with queued as (
       insert into private.mail_outbox (kind, priority, message_domain, test_address)
       values ('test', 1, coalesce((select message_domain from private.mail_settings), 'localhost'), $1)
       returning id
     )
     select id::text as id, ${notify(OUTBOXES.mail)}::text as notified from queued`,
    [address],
  )
  if (!row) throw new Error('the test message was not queued')
  return row.id
}
