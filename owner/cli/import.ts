import { basename } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { cliActor, recordAudit } from '../../server/audit/audit-record'
import { copyTextLine } from '../../server/db/copy-text'
import type { CopyTransaction, Database } from '../../server/db/database'
import { allColumns, type EntryColumn } from '../../server/waitlist/admin/entry-columns'
import {
  addStaged,
  createStage,
  fillListed,
  settleImport,
  stagedDuplicates,
  stagedListed,
  stageRows,
} from '../../server/waitlist/admin/import-staging'
import { moveImported } from '../../server/waitlist/entry-status'
import { exitFor } from './exit-status'
import { checkImportFile, importRecords } from './import-records'
import { withDatabaseAsIs } from './with-database'

// Enough to see what is wrong without flooding the terminal.
const SHOWN_PROBLEMS = 50
// COPY data leaves in chunks of about this many characters, not a message per line.
const COPY_CHUNK = 64 * 1024

export interface LineProblem {
  line: number
  message: string
}

export type ImportOutcome =
  | { kind: 'refused'; problems: LineProblem[]; count: number }
  | { kind: 'dry-run'; entries: number; listed: number }
  | {
      kind: 'imported'
      entries: number
      added: number
      /** Of the entries already listed, how many took the file's further status (ADR 039). */
      raised: number
      /** Of the entries already listed, how many took the file's answers or source, having none. */
      filled: number
    }

/** The problems of the lines, the first SHOWN_PROBLEMS kept, every one counted. */
class Problems {
  shown: LineProblem[] = []
  count = 0
  add(problem: LineProblem) {
    this.count++
    if (this.shown.length < SHOWN_PROBLEMS) this.shown.push(problem)
  }
}

/** What the staging reads from a file: its columns and the import's time, for what it lacks. */
interface StagedFile {
  path: string
  columns: readonly EntryColumn[]
  importTime: string
}

/** The good records as COPY text for the staging table, in chunks; the bad ones go to `problems`. */
async function* stagedLines(file: StagedFile, problems: Problems, counted: { entries: number }) {
  let chunk = ''
  for await (const records of importRecords(file.path, file.columns)) {
    for (const record of records) {
      if (record.problem) {
        problems.add({ line: record.line, message: record.problem })
        continue
      }
      counted.entries++
      const fields = allColumns(record.fields, file.columns, file.importTime)
      chunk += copyTextLine([String(record.line), ...fields])
    }
    if (chunk.length >= COPY_CHUNK) {
      yield chunk
      chunk = ''
    }
  }
  if (chunk) yield chunk
}

async function stageFile(tx: CopyTransaction, path: string) {
  // The header says which columns the file has, in which order; the others take their defaults.
  const columns = await checkImportFile(path)
  const importTime = await createStage(tx)
  const problems = new Problems()
  const counted = { entries: 0 }
  await pipeline(Readable.from(stagedLines({ path, columns, importTime }, problems, counted)), stageRows(tx))
  const duplicates = await stagedDuplicates(tx, SHOWN_PROBLEMS)
  const shown = [
    ...problems.shown,
    ...duplicates.shown.map(({ line, first }) => ({ line, message: `the same address as line ${first}` })),
  ].sort((a, b) => a.line - b.line)
  return {
    entries: counted.entries,
    shown: shown.slice(0, SHOWN_PROBLEMS),
    count: problems.count + duplicates.count,
  }
}

/**
 * Reads an `export` file into the list in one transaction, streaming: every line is checked as it
 * goes into a staging table, and the entries are added only if none is bad, all at once, with their
 * statuses, sources and answers (or, for a dry run, only counted). Addresses already listed are
 * skipped, but move on to a further status the file has for them, and take its answers and source
 * where they have none.
 */
export async function importFile(db: Database, path: string, dryRun: boolean): Promise<ImportOutcome> {
  const outcome = await db.copyTransaction(async (tx): Promise<ImportOutcome> => {
    const staged = await stageFile(tx, path)
    if (staged.count > 0) return { kind: 'refused', problems: staged.shown, count: staged.count }
    if (dryRun) return { kind: 'dry-run', entries: staged.entries, listed: await stagedListed(tx) }
    const added = await addStaged(tx, staged.entries)
    // When every entry was added, none was listed before, and none has a status to move on.
    const listed = added < staged.entries
    const raised = listed ? await moveImported(tx) : 0
    const filled = listed ? await fillListed(tx) : 0
    // The file's name only: its lines are addresses.
    const detail = `${basename(path)}: ${added} added, ${raised} moved on, ${filled} filled in`
    await recordAudit(tx, cliActor(), { action: 'import', detail, count: added + raised + filled })
    return { kind: 'imported', entries: staged.entries, added, raised, filled }
  })
  if (outcome.kind === 'imported') await settleImport(db, outcome.added)
  return outcome
}

/**
 * A dry run where no database exists yet, so nothing is listed: the lines are checked here, their
 * duplicates found in memory (a staging table needs a database; this one holds every address).
 */
async function checkAlone(path: string): Promise<ImportOutcome> {
  const problems = new Problems()
  const firstLine = new Map<string, number>()
  const columns = await checkImportFile(path)
  const email = columns.findIndex((column) => column.name === 'email')
  for await (const records of importRecords(path, columns))
    for (const { line, fields, problem } of records) {
      // citext's rule, as the staging table's lower(): addresses are ASCII (the address rule).
      const address = fields[email]?.toLowerCase() ?? ''
      const first = problem ? undefined : firstLine.get(address)
      if (problem || first !== undefined)
        problems.add({ line, message: problem ?? `the same address as line ${first}` })
      else firstLine.set(address, line)
    }
  if (problems.count > 0) return { kind: 'refused', problems: problems.shown, count: problems.count }
  return { kind: 'dry-run', entries: firstLine.size, listed: 0 }
}

function report(path: string, outcome: ImportOutcome): number {
  if (outcome.kind === 'refused') {
    const lines = outcome.problems.map((problem) => `  line ${problem.line}: ${problem.message}`)
    if (outcome.count > SHOWN_PROBLEMS) lines.push(`  … and ${outcome.count - SHOWN_PROBLEMS} more`)
    const count = outcome.count === 1 ? '1 bad line' : `${outcome.count} bad lines`
    console.error(`${path}: ${count}; nothing was imported.\n${lines.join('\n')}`)
    return 1
  }
  if (outcome.kind === 'dry-run') {
    const { entries, listed } = outcome
    console.log(
      `Dry run: ${path} holds ${entries} entries; ${entries - listed} would be added, ` +
        `${listed} are already on the list and would be skipped. Nothing was written.`,
    )
    return exitFor(entries - listed)
  }
  const raised =
    outcome.raised > 0
      ? ` Of those, ${outcome.raised} took the file's further status (invited, bounced or unsubscribed).`
      : ''
  const filled =
    outcome.filled > 0
      ? ` ${outcome.filled} listed took the file's answers or source where they had none (their own are kept).`
      : ''
  console.log(
    `Imported ${path}: ${outcome.added} added, ${outcome.entries - outcome.added} already on the list (skipped).${raised}${filled} ` +
      'No signup notifications or mail were sent for them.',
  )
  return exitFor(outcome.added + outcome.raised + outcome.filled)
}

/**
 * `import FILE [--dry-run]`: adds the entries of an `export` file with their created_at, all in
 * one transaction, after every line has been checked. The file's start is checked before the
 * database is opened.
 */
export async function importCommand(
  path: string,
  dryRun: boolean,
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>,
): Promise<number> {
  await checkImportFile(path)
  if (!dryRun) return report(path, await withDatabase((db) => importFile(db, path, false)))
  // A dry run writes nothing: the database as it is, or none at all before the first start.
  const outcome = (await withDatabaseAsIs((db) => importFile(db, path, true))) ?? (await checkAlone(path))
  return report(path, outcome)
}
