import type { Database } from '../../server/db/database'
import { removeEntry } from '../../server/waitlist/admin/waitlist-admin'

/**
 * `remove EMAIL`: an erasure request. Exits 0 whether or not the address was listed: either way
 * it is not on the list afterwards, so a batch of requests can be replayed safely.
 */
export async function removeCommand(db: Database, email: string): Promise<number> {
  if (await removeEntry(db, email)) console.log(`Removed ${email} from the waitlist.`)
  else console.log(`${email} is not on the waitlist (in any letter case); nothing was removed.`)
  return 0
}
