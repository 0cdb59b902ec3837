import { pipeline } from 'node:stream/promises'
import { CopyTextRows } from '../../server/db/copy-text'
import { columnIndex, copyEntriesSql } from '../../server/waitlist/admin/entry-columns'
import { countEntries } from '../../server/waitlist/admin/waitlist-admin'
import { withDatabase } from './with-database'

/** `count [--since DATE]`: how many addresses are on the list. */
export async function countCommand(since: string | undefined): Promise<number> {
  console.log(await withDatabase((db) => countEntries(db, since)))
  return 0
}

/**
 * `list [--since DATE]`: one line per entry, created_at (UTC), the address and its status, two
 * spaces apart; oldest first. Streamed from COPY, as `export` is: a million lines in a chunk's memory.
 */
export async function listCommand(since: string | undefined): Promise<number> {
  const email = columnIndex('email')
  const createdAt = columnIndex('created_at')
  const status = columnIndex('status')
  const lines = new CopyTextRows((row) => `${row[createdAt]}  ${row[email]}  ${row[status]}\n`)
  // Standard output is Node's to close, not ours.
  await withDatabase((db) =>
    db.copyTransaction((tx) =>
      pipeline(tx.copyTo(copyEntriesSql(since)), lines, process.stdout, { end: false }),
    ),
  )
  return 0
}
