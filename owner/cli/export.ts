import { rm } from 'node:fs/promises'
import { cliActor } from '../../server/admin/audit'
import { type EntryFilter, exportCsv } from '../../server/admin/entries'
import { withDatabase } from './with-database'
import { openPrivateFile } from './write-private-file'

/**
 * `export [FILTER] [--out FILE]`: the CSV to FILE (mode 0600), or to standard output; the record
 * names who took it and how many (`flags`: the filter as typed).
 */
export async function exportCommand(
  filter: EntryFilter,
  out: string | undefined,
  flags = '',
): Promise<number> {
  const said = { filter, actor: cliActor(), detail: flags || 'the whole list' }
  if (!out) {
    // Standard output is Node's to close, not ours.
    await withDatabase((db) => exportCsv(db, process.stdout, { ...said, end: false }))
    return 0
  }
  const entries = await withDatabase(async (db) => {
    // Opened once the database has answered, so an unreachable one leaves an earlier file alone.
    const file = await openPrivateFile(out)
    try {
      return await exportCsv(db, file, said)
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
