import { rm } from 'node:fs/promises'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { withDatabase } from '../../../owner/cli/with-database'
import { openPrivateFile } from '../../../owner/cli/write-private-file'
import { CopyTextRows } from '../../db/copy-text'
import type { Database } from '../../db/database'
import { csvRecord } from './csv'
import { copyEntriesSql, ENTRY_COLUMNS } from './entry-columns'
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
    await pipeline(tx.copyTo(copyEntriesSql(options.filter)), rows, out, { end: options.end ?? true })
    return rows.rows
  })
}

/** `export [FILTER] [--out FILE]`: the CSV to FILE (mode 0600), or to standard output. */
export async function exportCommand(filter: EntryFilter, out: string | undefined): Promise<number> {
  if (!out) {
    // Standard output is Node's to close, not ours.
    await withDatabase((db) => exportCsv(db, process.stdout, { filter, end: false }))
    return 0
  }
  const entries = await withDatabase(async (db) => {
    // Opened once the database has answered, so an unreachable one leaves an earlier file alone.
    const file = await openPrivateFile(out)
    try {
      return await exportCsv(db, file, { filter })
    } catch (error) {
      // Half a list must not pass for the whole of it.
      await rm(out, { force: true })
      throw error
    } finally {
      file.destroy()
    }
  })
  console.error(`Wrote ${entries} entries to ${out}`)
  return 0
}
