import type { Queryable } from '../../server/db/database'
import { readEntries } from '../../server/waitlist/admin/waitlist-admin'
import { toCsv } from './csv'

/** The file `export` writes and the studio's download serves: RFC 4180, header email,created_at. */
export async function exportCsv(db: Queryable, since?: string): Promise<{ csv: string; entries: number }> {
  const entries = await readEntries(db, since)
  const csv = toCsv(
    ['email', 'created_at'],
    entries.map((entry) => [entry.email, entry.created_at]),
  )
  return { csv, entries: entries.length }
}
