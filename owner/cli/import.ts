import type { Database } from '../../server/db/database'
import { importEntries } from '../../server/waitlist/admin/waitlist-admin'
import { countListedAsIs } from './listed-as-is'
import { readImportFile } from './read-import-file'

// Enough to see what is wrong without flooding the terminal.
const SHOWN_PROBLEMS = 50
const PROGRESS_FROM = 10_000

/**
 * `import FILE [--dry-run]`: adds the entries of an `export` file with their created_at, all in
 * one transaction, after every line has been checked. Addresses already listed are skipped.
 */
export async function importCommand(
  path: string,
  dryRun: boolean,
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>,
): Promise<number> {
  // The file is checked whole before the database is even opened.
  const { entries, problems } = await readImportFile(path)
  if (problems.length > 0) {
    const lines = problems
      .slice(0, SHOWN_PROBLEMS)
      .map((problem) => `  line ${problem.line}: ${problem.message}`)
    if (problems.length > SHOWN_PROBLEMS) lines.push(`  … and ${problems.length - SHOWN_PROBLEMS} more`)
    const count = problems.length === 1 ? '1 bad line' : `${problems.length} bad lines`
    console.error(`${path}: ${count}; nothing was imported.\n${lines.join('\n')}`)
    return 1
  }
  if (dryRun) {
    const emails = entries.map((entry) => entry.email)
    const listed = await countListedAsIs(emails)
    console.log(
      `Dry run: ${path} holds ${entries.length} entries; ${entries.length - listed} would be added, ` +
        `${listed} are already on the list and would be skipped. Nothing was written.`,
    )
    return 0
  }
  const progress =
    entries.length >= PROGRESS_FROM
      ? (done: number) => {
          if (process.stderr.isTTY) process.stderr.write(`\rImporting… ${done} / ${entries.length}`)
          else if (done % 50_000 === 0 || done === entries.length)
            console.error(`Importing… ${done} / ${entries.length}`)
        }
      : undefined
  const result = await withDatabase((db) => importEntries(db, entries, progress))
  if (progress && process.stderr.isTTY) process.stderr.write('\n')
  console.log(
    `Imported ${path}: ${result.added} added, ${result.skipped} already on the list (skipped). ` +
      'No signup notifications were sent for them.',
  )
  return 0
}
