import { basename } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeUnprinted, escapeUnprintedJson } from '../../contract/clean-text'
import { cliActor, recordAudit } from '../../server/admin/audit'
import {
  addStaged,
  copyTextLine,
  createStage,
  ENTRY_COLUMNS,
  fillListed,
  importText,
  moveImported,
  registerWords,
  settleImport,
  skipSuppressed,
  stagedDuplicates,
  stagedListed,
  stageRows,
  wordsVersion,
} from '../../server/admin/import'
import type { CopyTransaction, Database } from '../../server/admin/runtime'
import { exitFor } from './exit-status'
import { withImportConsent } from './import-consent'
import { type FileLayout, type ImportOptions, layoutLines, PLAIN_IMPORT } from './import-layout'
import { checkImportFile, type ImportRecord, importRecords } from './import-records'
import { storedView } from './import-row'
import { plural } from './plural'
import { withDatabaseAsIs } from './with-database'

// Enough to fix a sheet in one pass without flooding the terminal; the rest are counted.
const SHOWN_PROBLEMS = 100
// The rows a dry run shows as they will be stored.
const SHOWN_ROWS = 3
// COPY data leaves in chunks of about this many characters, not a message per line.
const COPY_CHUNK = 64 * 1024

export interface LineProblem {
  line: number
  message: string
}

/** The rows skipped for want of a usable address (the first SHOWN_PROBLEMS), how many, and the first rows staged. */
export interface ReadAccount {
  skipped: LineProblem[]
  skippedCount: number
  firstRows: string[][]
}

export type ImportOutcome =
  | ({ kind: 'refused'; problems: LineProblem[]; count: number; lines: number } & ReadAccount)
  | ({ kind: 'dry-run'; entries: number; listed: number; suppressed: number } & ReadAccount)
  | ({
      kind: 'imported'
      entries: number
      /** Lines whose address was erased or removed before (ADR 098): not imported. */
      suppressed: number
      added: number
      /** Of the entries already listed, how many took the file's further status (ADR 039). */
      raised: number
      /** Of the entries already listed, how many took the file's answers or source, having none. */
      filled: number
    } & ReadAccount)

/** The problems of the lines, the first SHOWN_PROBLEMS kept, every one counted, and the lines they are on. */
class Problems {
  shown: LineProblem[] = []
  count = 0
  lines = 0
  skipped: LineProblem[] = []
  skippedCount = 0
  firstRows: string[][] = []

  /** A record read: its problems counted, its skipping noted, or its staged values (the first few kept). */
  add(record: ImportRecord) {
    if (record.skipped !== undefined) {
      this.skippedCount++
      if (this.skipped.length < SHOWN_PROBLEMS)
        this.skipped.push({ line: record.line, message: record.skipped })
    } else if (record.problems.length > 0) this.addLine(record.line, record.problems)
    else if (record.staged && this.firstRows.length < SHOWN_ROWS) this.firstRows.push(record.staged)
  }

  get account(): ReadAccount {
    return { skipped: this.skipped, skippedCount: this.skippedCount, firstRows: this.firstRows }
  }

  addLine(line: number, messages: readonly string[]) {
    if (messages.length > 0) this.lines++
    for (const message of messages) {
      this.count++
      if (this.shown.length < SHOWN_PROBLEMS) this.shown.push({ line, message })
    }
  }
}

/** What the staging reads from a file: its layout and options, the import's time and its words, for what it lacks. */
interface StagedFile {
  path: string
  layout: FileLayout
  options: ImportOptions
  importTime: string
  /** The version of the words naming the file: a line's consent record when it has none (ADR 096). */
  fileWords: string
}

/** The good records as COPY text for the staging table, in chunks; the bad ones go to `problems`. */
async function* stagedLines(file: StagedFile, problems: Problems, counted: { entries: number }) {
  let chunk = ''
  for await (const records of importRecords(file.path, file.layout, file.options, file.importTime)) {
    for (const record of records) {
      problems.add(record)
      if (!record.staged) continue
      counted.entries++
      chunk += copyTextLine([
        String(record.line),
        ...withImportConsent(record.staged, file.fileWords, file.importTime),
      ])
    }
    if (chunk.length >= COPY_CHUNK) {
      yield chunk
      chunk = ''
    }
  }
  if (chunk) yield chunk
}

async function stageFile(tx: CopyTransaction, path: string, options: ImportOptions, fileWords: string) {
  // The header says which columns the file has, in which order; the others take their defaults.
  const layout = await checkImportFile(path, options)
  const importTime = await createStage(tx)
  const problems = new Problems()
  const counted = { entries: 0 }
  const file = { path, layout, options, importTime, fileWords }
  await pipeline(Readable.from(stagedLines(file, problems, counted)), stageRows(tx))
  const duplicates = await stagedDuplicates(tx, SHOWN_PROBLEMS)
  const shown = [
    ...problems.shown,
    ...duplicates.shown.map(({ line, first }) => ({ line, message: `the same address as line ${first}` })),
  ].sort((a, b) => a.line - b.line)
  return {
    entries: counted.entries,
    shown: shown.slice(0, SHOWN_PROBLEMS),
    count: problems.count + duplicates.count,
    lines: problems.lines + duplicates.count,
    account: problems.account,
  }
}

/**
 * Reads an `export` file into the list in one transaction, streaming: every line is checked as it
 * goes into a staging table, and the entries are added only if none is bad, all at once, with their
 * statuses, sources, answers, marks and consent records (or, for a dry run, only counted); erased
 * and removed addresses are skipped (ADR 098). Addresses already listed are skipped, but move on to
 * a further status the file has for them, and take its answers and source where they have none.
 */
export async function importFile(
  db: Database,
  path: string,
  dryRun: boolean,
  options: ImportOptions = PLAIN_IMPORT,
): Promise<ImportOutcome> {
  // A line without a consent record of its own names the file it came from (ADR 096).
  const fileWords = importText(path)
  const outcome = await db.copyTransaction(async (tx): Promise<ImportOutcome> => {
    const staged = await stageFile(tx, path, options, wordsVersion(fileWords).version)
    if (staged.count > 0)
      return {
        kind: 'refused',
        problems: staged.shown,
        count: staged.count,
        lines: staged.lines,
        ...staged.account,
      }
    const suppressed = await skipSuppressed(tx, !dryRun)
    if (dryRun)
      return {
        kind: 'dry-run',
        entries: staged.entries,
        listed: await stagedListed(tx),
        suppressed,
        ...staged.account,
      }
    await registerWords(tx, [fileWords])
    const kept = staged.entries - suppressed
    const added = await addStaged(tx, kept)
    // When every entry was added, none was listed before, and none has a status to move on.
    const listed = added < kept
    const raised = listed ? await moveImported(tx) : 0
    const filled = listed ? await fillListed(tx) : 0
    // The file's name only: its lines are addresses.
    const skipped = suppressed > 0 ? `, ${suppressed} erased before skipped` : ''
    const detail = `${basename(path)}: ${added} added, ${raised} moved on, ${filled} filled in${skipped}`
    await recordAudit(tx, cliActor(), { action: 'import', detail, count: added + raised + filled })
    return { kind: 'imported', entries: staged.entries, suppressed, added, raised, filled, ...staged.account }
  })
  if (outcome.kind === 'imported') await settleImport(db, outcome.added)
  return outcome
}

/**
 * A dry run where no database exists yet, so nothing is listed: the lines are checked here, their
 * duplicates found in memory (a staging table needs a database; this one holds every address).
 */
async function checkAlone(path: string, options: ImportOptions): Promise<ImportOutcome> {
  const problems = new Problems()
  const firstLine = new Map<string, number>()
  const layout = await checkImportFile(path, options)
  const email = ENTRY_COLUMNS.findIndex((column) => column.name === 'email')
  for await (const records of importRecords(path, layout, options))
    for (const record of records) {
      // citext's rule, as the staging table's lower(): addresses are ASCII (the address rule).
      const address = record.staged?.[email]?.toLowerCase()
      const first = address === undefined ? undefined : firstLine.get(address)
      if (first !== undefined) problems.addLine(record.line, [`the same address as line ${first}`])
      else problems.add(record)
      if (address !== undefined && first === undefined) firstLine.set(address, record.line)
    }
  if (problems.count > 0)
    return {
      kind: 'refused',
      problems: problems.shown,
      count: problems.count,
      lines: problems.lines,
      ...problems.account,
    }
  return { kind: 'dry-run', entries: firstLine.size, listed: 0, suppressed: 0, ...problems.account }
}

/** "1 is", "2 are": a count as the subject of a sentence. */
const counted = (count: number, one: string, many: string) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`

/** The rows skipped for want of an address, each by its line, on standard error: the rest went in. */
function reportSkipped(path: string, account: ReadAccount, would: boolean) {
  if (account.skippedCount === 0) return
  const lines = account.skipped.map((row) => `  line ${row.line}: ${escapeUnprinted(row.message)}`)
  if (account.skippedCount > SHOWN_PROBLEMS)
    lines.push(`  … and ${plural(account.skippedCount - SHOWN_PROBLEMS, 'more row', 'more rows')}`)
  const rows = plural(account.skippedCount, 'row')
  console.error(
    `${path}: ${rows} without a usable address ${would ? 'would be' : account.skippedCount === 1 ? 'was' : 'were'} skipped:\n${lines.join('\n')}`,
  )
}

/** The first rows as they will be stored, one JSON object a line, the file's values escaped (ADR 082). */
function firstRowLines(account: ReadAccount): string[] {
  if (account.firstRows.length === 0) return []
  const rows = account.firstRows.map((row) => `  ${escapeUnprintedJson(JSON.stringify(storedView(row)))}`)
  return [`The first ${plural(rows.length, 'row')} as they will be stored:`, ...rows, '']
}

function report(path: string, outcome: ImportOutcome): number {
  reportSkipped(path, outcome, outcome.kind !== 'imported')
  if (outcome.kind === 'refused') {
    // The file's own values, printed, not obeyed (ADR 082).
    const lines = outcome.problems.map(
      (problem) => `  line ${problem.line}: ${escapeUnprinted(problem.message)}`,
    )
    if (outcome.count > SHOWN_PROBLEMS)
      lines.push(`  … and ${plural(outcome.count - SHOWN_PROBLEMS, 'more error', 'more errors')}`)
    const count =
      outcome.count === outcome.lines
        ? plural(outcome.count, 'bad line')
        : `${plural(outcome.count, 'error')} on ${plural(outcome.lines, 'line')}`
    console.error(`${path}: ${count}; nothing was imported.\n${lines.join('\n')}`)
    return 1
  }
  if (outcome.kind === 'dry-run') {
    const { entries, listed, suppressed } = outcome
    const added = entries - listed - suppressed
    console.log(
      `${firstRowLines(outcome).join('\n')}` +
        `Dry run: ${path} holds ${plural(entries, 'entry', 'entries')}; ${added.toLocaleString('en')} would be added, ` +
        `${counted(listed, 'is already on the list', 'are already on the list')} and would be skipped` +
        `${suppressedWords(suppressed, 'would be')}. Nothing was written.`,
    )
    return exitFor(added)
  }
  const raised =
    outcome.raised > 0
      ? ` Of those, ${outcome.raised.toLocaleString('en')} took the file's further status (invited, bounced or unsubscribed).`
      : ''
  const filled =
    outcome.filled > 0
      ? ` ${counted(outcome.filled, 'listed entry', 'listed entries')} took the file's answers, source, tags or note where they had none (their own are kept).`
      : ''
  const { entries, suppressed, added } = outcome
  const listed = entries - suppressed - added
  console.log(
    `Imported ${path}: ${added.toLocaleString('en')} added; ${counted(listed, 'is already on the list', 'are already on the list')} (skipped)` +
      `${suppressedWords(suppressed, suppressed === 1 ? 'was' : 'were')}.${raised}${filled} ` +
      'No signup notifications or mail were sent for them.',
  )
  return exitFor(added + outcome.raised + outcome.filled)
}

/** The addresses erased or removed before, which import never brings back (ADR 098). */
function suppressedWords(suppressed: number, were: string): string {
  if (suppressed === 0) return ''
  const which = plural(suppressed, 'address', 'addresses')
  return `; ${which} erased or removed before ${were} skipped (unsuppress EMAIL allows one again)`
}

/**
 * `import FILE [--dry-run] [--map ID:VALUE=CHOICE]… [--ignore-unknown]`: adds the entries of an
 * `export` file or the lab's own sheet, all in one transaction, after every line has been checked.
 * The file's start is checked before the database is opened; a dry run says first where each
 * column goes.
 */
export async function importCommand(
  path: string,
  dryRun: boolean,
  withDatabase: <T>(fn: (db: Database) => Promise<T>) => Promise<T>,
  options: ImportOptions = PLAIN_IMPORT,
): Promise<number> {
  const layout = await checkImportFile(path, options)
  if (!dryRun) return report(path, await withDatabase((db) => importFile(db, path, false, options)))
  console.log(`How import reads the columns of ${path}:\n${layoutLines(layout, options).join('\n')}\n`)
  // A dry run writes nothing: the database as it is, or none at all before the first start.
  const outcome =
    (await withDatabaseAsIs((db) => importFile(db, path, true, options))) ?? (await checkAlone(path, options))
  return report(path, outcome)
}
