import type { ServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import { previewSettings } from '../../server/mail/messages/message-preview'
import { isPlaceholderLink, placeholderNote } from '../../server/mail/messages/reserved-names'
import { readMailSettings } from '../../server/mail/queue/mail-settings'
import { queueTestInvitation } from '../../server/waitlist/invite/invitations'
import { followBatch } from './follow-batch'

type Print = (line: string) => void

/**
 * `invite --test ADDRESS [--wait]`: the next invitee's invitation, sent by the running server to
 * ADDRESS. Nothing is added to the list; the message's links change nothing (server/mail/invitations.ts). An
 * address listed as unsubscribed, complained or bounced gets nothing: one line saying so, exit 1.
 */
export async function inviteTestCommand(
  db: Database,
  request: { address: string; wait: boolean; env: Pick<ServerEnv, 'SITE_URL' | 'BETA_URL' | 'PORT'> },
  print: Print = console.log,
  fail: Print = console.error,
): Promise<number> {
  const { address } = request
  const sent = await queueTestInvitation(db, address)
  if ('refused' in sent) {
    fail(sent.reason)
    return 1
  }
  print(
    `Queued a test of the invitation to ${address}: the message the next invitee gets, sent by the ` +
      'running server. Its links change nothing and its invite code is refused; nobody was added to the list.',
  )
  const settings = await readMailSettings(db)
  // The link the server puts in the message: a test shows the placeholder, and says so.
  const { betaUrl } = previewSettings(settings, request.env).context
  if (isPlaceholderLink(betaUrl)) print(placeholderNote(betaUrl))
  if (!settings.senderConfigured)
    print('No server with SMTP_URL has started on this database yet: it is sent once one does.')
  if (request.wait) await followBatch(db, [sent.queued], print)
  return 0
}
