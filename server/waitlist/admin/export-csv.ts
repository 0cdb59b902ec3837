import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { CopyTextRows } from '../../db/copy-text'
import type { Database } from '../../db/database'
import { csvRecord } from './csv'
import { copyEntries, ENTRY_COLUMNS } from './entry-columns'
import type { EntryFilter } from './entry-filter'

/**
 * The file `export` writes and the studio's download serves: RFC 4180 with the header of
 * ENTRY_COLUMNS (email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,
 * joined_at,source, then answer_<id> for each question; empty when none), oldest first, streamed
 * from one COPY: memory holds a chunk, whatever the length of the list. `out` is ended unless told
 * otherwise. Resolves to the entries.
 */
export async function exportCsv(
  db: Database,
  out: Writable,
  options: { filter?: EntryFilter; end?: boolean } = {},
): Promise<number> {
  return db.copyTransaction(async (tx) => {
    const rows = new CopyTextRows(csvRecord, csvRecord(ENTRY_COLUMNS.map((column) => column.name)))
    await pipeline(copyEntries(tx, options.filter), rows, out, { end: options.end ?? true })
    return rows.rows
  })
}
