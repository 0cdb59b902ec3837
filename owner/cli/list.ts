import { countEntries, readEntries } from '../../server/waitlist/admin/waitlist-admin'
import { withDatabase } from './with-database'

/** `count [--since DATE]`: how many addresses are on the list. */
export async function countCommand(since: string | undefined): Promise<number> {
  console.log(await withDatabase((db) => countEntries(db, since)))
  return 0
}

/** `list [--since DATE]`: one line per entry, created_at (UTC), the address and its status, two spaces apart; oldest first. */
export async function listCommand(since: string | undefined): Promise<number> {
  const entries = await withDatabase((db) => readEntries(db, since))
  for (const entry of entries)
    console.log(`${entry.created_at}  ${entry.email}  ${entry.state?.status ?? 'waiting'}`)
  return 0
}
