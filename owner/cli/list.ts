import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeUnprinted } from '../../contract/clean-text'
import { CopyTextRows } from '../../server/db/copy-text'
import type { Database } from '../../server/db/database'
import { columnsNamed, copyEntries } from '../../server/waitlist/admin/entry-columns'
import type { EntryFilter } from '../../server/waitlist/admin/entry-filter'
import { countEntries } from '../../server/waitlist/admin/waitlist-admin'
import { withDatabase } from './with-database'

/**
 * `count [FILTER]`: how many entries the filter matches (all of them without one), as plain digits
 * (a number given to console.log is coloured under FORCE_COLOR, which a script would read).
 */
export async function countCommand(filter: EntryFilter): Promise<number> {
  console.log(String(await withDatabase((db) => countEntries(db, filter))))
  return 0
}

/** What `list` prints of an entry, in its order. */
const LIST_COLUMNS = columnsNamed('created_at', 'email', 'status')

/**
 * The lines `list` writes to `out` (left open): one per entry the filter matches, created_at (UTC),
 * the address and its status, two spaces apart; oldest first. Streamed from COPY, as `export` is: a
 * million lines in a chunk's memory. Nothing in a line drives the terminal (ADR 082): what is not
 * text is written as its escape. Resolves to the number of lines.
 */
export function listEntries(db: Database, filter: EntryFilter, out: Writable): Promise<number> {
  const lines = new CopyTextRows((fields) => `${escapeUnprinted(fields.join('  '))}\n`)
  return db.copyTransaction(async (tx) => {
    await pipeline(copyEntries(tx, filter, LIST_COLUMNS), lines, out, { end: false })
    return lines.rows
  })
}

/** `list [FILTER]`: listEntries to standard output, which is Node's to close, not ours. */
export async function listCommand(filter: EntryFilter): Promise<number> {
  await withDatabase((db) => listEntries(db, filter, process.stdout))
  return 0
}
