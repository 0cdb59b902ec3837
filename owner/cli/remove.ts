import { cliActor } from '../../server/audit/audit-record'
import type { Database } from '../../server/db/database'
import { eraseEntry } from '../../server/waitlist/admin/waitlist-admin'

/**
 * `remove EMAIL`: an erasure request. Exits 0 whether or not the address was listed: either way
 * it is not on the list afterwards, so a batch of requests can be replayed safely.
 */
export async function removeCommand(db: Database, email: string): Promise<number> {
  // The address as it was stored, so the owner sees which entry went, whatever case was typed.
  const removed = await eraseEntry(db, email, cliActor())
  if (removed !== undefined) console.log(`Removed ${removed} from the waitlist.`)
  else console.log(`${email} is not on the waitlist (in any letter case); nothing was removed.`)
  return 0
}
