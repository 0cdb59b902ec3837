import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeUnprinted } from '../../../contract/clean-text'
import { type Actor, recordAudit } from '../../audit/audit-record'
import { CopyTextRows } from '../../db/copy-text'
import type { Database } from '../../db/database'
import { csvRecord } from './csv'
import { copyEntries, ENTRY_COLUMNS } from './entry-columns'
import type { EntryFilter } from './entry-filter'

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
  options: { filter?: EntryFilter; end?: boolean; actor: Actor; detail?: string },
): Promise<number> {
  return db.copyTransaction(async (tx) => {
    const rows = new CopyTextRows(record, csvRecord(ENTRY_COLUMNS.map((column) => column.name)))
    await pipeline(copyEntries(tx, options.filter), rows, out, { end: options.end ?? true })
    // Every address left in that file: who took it, and how many, on the record.
    await recordAudit(tx, options.actor, { action: 'export', detail: options.detail, count: rows.rows })
    return rows.rows
  })
}
