import type { Queryable } from '../../server/db/database'
import { readEntries } from '../../server/waitlist/admin/waitlist-admin'
import { toCsv } from './csv'
import { EXPORT_HEADER, STATE_FIELDS } from './read-import-file'
import { withDatabase } from './with-database'
import { writePrivateFile } from './write-private-file'

/**
 * The file `export` writes and the studio's download serves: RFC 4180, the header
 * email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at (dates '' when none).
 */
export async function exportCsv(db: Queryable, since?: string): Promise<{ csv: string; entries: number }> {
  const entries = await readEntries(db, since)
  const csv = toCsv(
    EXPORT_HEADER,
    entries.map(({ email, created_at, state }) => [
      email,
      created_at,
      ...STATE_FIELDS.map((field) => state?.[field] ?? ''),
    ]),
  )
  return { csv, entries: entries.length }
}

/** `export [--since DATE] [--out FILE]`: the CSV to FILE (mode 0600), or to standard output. */
export async function exportCommand(since: string | undefined, out: string | undefined): Promise<number> {
  const { csv, entries } = await withDatabase((db) => exportCsv(db, since))
  if (out) {
    await writePrivateFile(out, csv)
    console.error(`Wrote ${entries} entries to ${out}`)
  } else process.stdout.write(csv)
  return 0
}
