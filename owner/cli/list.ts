import { pipeline } from 'node:stream/promises'
import { CopyTextRows } from '../../server/db/copy-text'
import { columnIndex, copyEntriesSql } from '../../server/waitlist/admin/entry-columns'
import type { EntryFilter } from '../../server/waitlist/admin/entry-filter'
import { countEntries } from '../../server/waitlist/admin/waitlist-admin'
import { withDatabase } from './with-database'

/** `count [--status S]… [--since DATE]`: how many entries the filter matches (all of them without one). */
export async function countCommand(filter: EntryFilter): Promise<number> {
  console.log(await withDatabase((db) => countEntries(db, filter)))
  return 0
}

/**
 * `list [--status S]… [--since DATE]`: one line per entry the filter matches, created_at (UTC), the
 * address and its status, two spaces apart; oldest first. Streamed from COPY, as `export` is: a
 * million lines in a chunk's memory.
 */
export async function listCommand(filter: EntryFilter): Promise<number> {
  const email = columnIndex('email')
  const createdAt = columnIndex('created_at')
  const status = columnIndex('status')
  const lines = new CopyTextRows((row) => `${row[createdAt]}  ${row[email]}  ${row[status]}\n`)
  // Standard output is Node's to close, not ours.
  await withDatabase((db) =>
    db.copyTransaction((tx) =>
      pipeline(tx.copyTo(copyEntriesSql(filter)), lines, process.stdout, { end: false }),
    ),
  )
  return 0
}
