import { cliActor } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import { type PreviewFallback, sendTest } from '../../server/admin/sending'
import { EXIT } from './exit-status'
import { followBatch } from './follow-batch'
import { printPreflight } from './preflight'

type Print = (line: string) => void

/**
 * `invite --test ADDRESS [--wait]`: the next invitee's invitation, sent by the running server to
 * ADDRESS, through the invite service the studio's "Send me a test" calls too. Nothing is added to
 * the list; the message's links change nothing. An address the rule refuses any mail (listed as
 * unsubscribed, complained or bounced) gets nothing: one line saying so, exit 1. Then the
 * preflight's lines (issue 66), so that what the relay answered and what the DNS says read together.
 */
export async function inviteTestCommand(
  db: Database,
  request: { address: string; wait: boolean; env: PreviewFallback },
  print: Print = console.log,
  fail: Print = console.error,
): Promise<number> {
  const { address } = request
  const sent = await sendTest(db, address, request.env, cliActor())
  if ('refused' in sent) {
    fail(sent.reason)
    return EXIT.nothingDone
  }
  print(
    `Queued a test of the invitation to ${address}: the message the next invitee gets, sent by the ` +
      'running server. Its links change nothing and its invite code is refused; nobody was added to the list.',
  )
  // The link the server puts in the message: a test shows the placeholder, and says so.
  if (sent.placeholder) print(sent.placeholder)
  if (!sent.senderConfigured)
    print('No server with SMTP_URL has started on this database yet: it is sent once one does.')
  if (request.wait) await followBatch(db, [sent.queued], print)
  if (sent.senderConfigured) await printPreflight(db, print)
  return 0
}
