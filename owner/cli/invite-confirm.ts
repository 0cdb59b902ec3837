import type { Database } from '../../server/admin/runtime'
import { confirmAgain, readMailSettings } from '../../server/admin/sending'
import { exitFor } from './exit-status'

type Print = (line: string) => void

/**
 * `invite --confirm EMAIL…`: the confirmation again, on the owner's word (no hourly limit, unlike a
 * repeat signup), for each named entry that is still unconfirmed; its expiry starts again. Every
 * address it leaves alone is named with why; it exits by the CLI's one rule (exit-status.ts).
 */
export async function inviteConfirmCommand(
  db: Database,
  emails: readonly string[],
  print: Print = console.log,
): Promise<number> {
  let queued = 0
  const outcomes = await confirmAgain(db, emails, 'owner')
  for (const email of emails) {
    const result = outcomes.get(email.trim().toLowerCase())
    if (!result) {
      print(`${email} is not on the waitlist`)
    } else if (result.outcome === 'queued') {
      queued++
      print(`Queued a confirmation for ${email}.`)
    } else if (result.outcome === 'pending') {
      print(`${email} already has a confirmation waiting to be sent`)
    } else if (result.outcome === 'not-unconfirmed') {
      print(`${email} is ${result.status}: it needs no confirmation`)
    }
  }
  if (queued > 0 && !(await readMailSettings(db)).senderConfigured)
    print('No server with SMTP_URL has started on this database yet: they are sent once one does.')
  return exitFor(queued)
}
