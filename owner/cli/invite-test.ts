import type { Database } from '../../server/db/database'
import { readMailSettings } from '../../server/waitlist/invitations/mail-settings'
import { queueTestInvitation } from '../../server/waitlist/invitations/test-send'
import { followBatch } from './follow-batch'

type Print = (line: string) => void

/**
 * `invite --test ADDRESS [--wait]`: the next invitee's invitation, sent by the running server to
 * ADDRESS. Nothing is added to the list; the message's links change nothing (test-send.ts).
 */
export async function inviteTestCommand(
  db: Database,
  address: string,
  wait: boolean,
  print: Print = console.log,
): Promise<number> {
  const id = await queueTestInvitation(db, address)
  print(
    `Queued a test of the invitation to ${address}: the message the next invitee gets, sent by the ` +
      'running server. Its links change nothing and its invite code is refused; nobody was added to the list.',
  )
  if (!(await readMailSettings(db)).senderConfigured)
    print('No server with SMTP_URL has started on this database yet: it is sent once one does.')
  if (wait) await followBatch(db, [id], print)
  return 0
}
