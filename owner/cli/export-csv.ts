import { rm } from 'node:fs/promises'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeUnprinted } from '../../contract/clean-text'
import { CopyTextRows } from '../../server/db/copy-text'
import type { Database } from '../../server/db/database'
import { copyEntriesSql, ENTRY_COLUMNS } from '../../server/waitlist/admin/entry-columns'
import type { EntryFilter } from '../../server/waitlist/admin/entry-filter'
import { csvRecord } from './csv'
import { withDatabase } from './with-database'
import { openPrivateFile } from './write-private-file'

// A text answer's line breaks and tabs are the person's own (the answers' rule keeps them), and
// RFC 4180 quotes the breaks; every other character that is not text (ESC, BEL, a CR that would
// rewrite the line on a terminal, U+202E…) is written as its escape (`\x1b`), as `show` prints it.
// Import reads an escape back as the text it is, so an export imported and exported again is the
// same file, and no control character comes back in (ADR 082).
const typed = (char: string) => char === '\n' || char === '\t'
const record = (fields: readonly string[]) => csvRecord(fields.map((field) => escapeUnprinted(field, typed)))

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
    const rows = new CopyTextRows(record, csvRecord(ENTRY_COLUMNS.map((column) => column.name)))
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
