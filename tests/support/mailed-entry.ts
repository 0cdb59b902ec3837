import { inviteNamed } from '../../server/waitlist/invite/invitations'
import { insertStatus } from '../reliability/support'
import type { MailTestServer } from './mail-test-server'

// MAIL_FROM's domain in startMailTestServer: the right part of every Message-ID it sends.
const MESSAGE_DOMAIN = 'tessel-labs.example'

/**
 * Puts `email` on the list through the REST insert, then has the running server invite it, as
 * `invite EMAIL` does, and waits until its SMTP server took the message and the server recorded
 * it sent: an address the lab mailed, which provider events may change. Returns the invitation's
 * Message-ID, <uuid@domain>.
 */
export async function mailedEntry(mail: MailTestServer, email: string): Promise<string> {
  if ((await insertStatus(mail.server, email)) !== 201) throw new Error(`${email} was not inserted`)
  const { messageIds } = await inviteNamed(mail.database.db, [email], {
    resend: true,
    messageDomain: MESSAGE_DOMAIN,
  })
  const id = messageIds[0]
  if (!id) throw new Error(`${email} was not invited`)
  for (let waited = 0; waited < 30_000; waited += 20) {
    const [sent] = await mail.database.db.query<{ uuid: string }>(
      `select uuid::text from private.mail_outbox where id = $1::bigint and status = 'sent'`,
      [id],
    )
    if (sent) return `<${sent.uuid}@${MESSAGE_DOMAIN}>`
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`the invitation to ${email} was not sent`)
}
