import type { Queryable } from '../../server/db/database'
import { readEntries } from '../../server/waitlist/admin/waitlist-admin'
import { toCsv } from './csv'
import { withDatabase } from './with-database'
import { writePrivateFile } from './write-private-file'

/** The file `export` writes and the studio's download serves: RFC 4180, header email,created_at. */
export async function exportCsv(db: Queryable, since?: string): Promise<{ csv: string; entries: number }> {
  const entries = await readEntries(db, since)
  const csv = toCsv(
    ['email', 'created_at'],
    entries.map((entry) => [entry.email, entry.created_at]),
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
