import { cliActor } from '../../server/admin/audit'
import { eraseEntry } from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import { exitFor } from './exit-status'

/**
 * `remove EMAIL…`: erasure requests, one address after another (erasure.ts: the entry and all it
 * holds, a keyed hash kept so imports skip the address, entry.erased to the webhook, a line of the
 * record). An address not on the list is named and left: it is not on the list afterwards either
 * way. Exits by the CLI's one rule (exit-status.ts): 0 when it removed any, 1 when none of them was
 * listed.
 */
export async function removeCommand(db: Database, emails: readonly string[]): Promise<number> {
  let removed = 0
  for (const email of emails) {
    // The address as it was stored, so the owner sees which entry went, whatever case was typed.
    const stored = await eraseEntry(db, email, 'removed', cliActor())
    if (stored === undefined) {
      console.log(`${email} is not on the waitlist (in any letter case); nothing was removed.`)
      continue
    }
    removed++
    console.log(
      `Removed ${stored} from the waitlist. Imports now skip it until it signs up again and confirms ` +
        'the address (or `unsuppress` allows it).',
    )
  }
  return exitFor(removed)
}
