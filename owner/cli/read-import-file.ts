import { readFile, stat } from 'node:fs/promises'
import { CsvError, parse } from 'csv-parse/sync'
import { emailProblem } from '../../server/waitlist/admin/email-rule'
import type { Entry, EntryState } from '../../server/waitlist/admin/waitlist-admin'
import { ENTRY_STATUSES, isEntryStatus } from '../../server/waitlist/invitations/entry-status'
import { fromCsvField } from './csv'

/**
 * The largest file `import` reads: about 600,000 addresses as `export` writes them. The file is
 * read whole so every line can be checked before anything is written; a bigger list is split.
 */
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024

export const IMPORT_HEADER = ['email', 'created_at'] as const
/** The columns `export` writes after those two: each entry's status and its dates. */
export const STATE_FIELDS = ['status', 'confirmed_at', 'invited_at', 'unsubscribed_at', 'bounced_at'] as const
export const EXPORT_HEADER = [...IMPORT_HEADER, ...STATE_FIELDS]

export interface LineProblem {
  line: number
  message: string
}

export interface ImportFile {
  entries: Entry[]
  /** Every line that cannot be imported; nothing is imported while there is one. */
  problems: LineProblem[]
}

/** Something wrong with the file as a whole: missing, too big, not text, not CSV, wrong header. */
export class ImportFileError extends Error {}

// What `export` writes (UTC with microseconds), and any other ISO 8601 time that names its zone:
// a time without a zone would be read in the database session's zone, silently shifted.
const TIMESTAMP =
  /^(\d{4})-(\d\d)-(\d\d)[T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)$/i

function timeProblem(value: string, column = 'created_at'): string | undefined {
  if (value === '') return `${column} is empty`
  const [, year, month, day] = TIMESTAMP.exec(value) ?? []
  // Date.UTC rolls 2026-02-30 over into March; the database refuses it, so must we.
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (!year || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
    return `${column} ${JSON.stringify(value.slice(0, 40))} is not a time such as 2026-11-01T09:00:00.000000Z`
  return undefined
}

/** The status columns of a line of a current export, or why they are wrong. */
function readState(fields: readonly string[]): { state?: EntryState; problem?: string } {
  const [status = '', ...dates] = fields
  if (!isEntryStatus(status))
    return {
      problem: `status ${JSON.stringify(status.slice(0, 20))} is not one of ${ENTRY_STATUSES.join(', ')}`,
    }
  for (const [index, value] of dates.entries()) {
    const problem = value === '' ? undefined : timeProblem(value, STATE_FIELDS[index + 1])
    if (problem) return { problem }
  }
  const [confirmed_at = '', invited_at = '', unsubscribed_at = '', bounced_at = ''] = dates
  return { state: { status, confirmed_at, invited_at, unsubscribed_at, bounced_at } }
}

async function readText(path: string): Promise<string> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new ImportFileError(
      error.code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read it (${error.code})`,
    )
  })
  if (!info.isFile()) throw new ImportFileError(`${path} is not a file`)
  if (info.size > MAX_IMPORT_BYTES) {
    const megabytes = (info.size / 1024 / 1024).toFixed(1)
    throw new ImportFileError(
      `${path} is ${megabytes} MB; import reads at most ${MAX_IMPORT_BYTES / 1024 / 1024} MB at a time. ` +
        'Split it into smaller files, each starting with the header line email,created_at.',
    )
  }
  const bytes = await readFile(path)
  const notText = `${path} is not a CSV text file (as written by \`npm run waitlist -- export\`)`
  if (bytes.includes(0)) throw new ImportFileError(notText)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ImportFileError(`${notText}: it is not UTF-8`)
  }
}

type ReadRecord = { entry: Entry } | { problem: string }

/** One line as an entry, or what is wrong with it. */
function readRecord(record: readonly string[], columns: readonly string[]): ReadRecord {
  if (record.length !== columns.length)
    return { problem: `expected ${columns.length} fields (${columns.join(',')}), found ${record.length}` }
  const [email = '', createdAt = '', ...stateFields] = record
  const problem = emailProblem(email) ?? timeProblem(createdAt)
  if (problem) return { problem }
  if (stateFields.length === 0) return { entry: { email, created_at: createdAt } }
  const { state, problem: stateProblem } = readState(stateFields)
  return state
    ? { entry: { email, created_at: createdAt, state } }
    : { problem: stateProblem ?? 'bad status' }
}

/**
 * Reads and checks a CSV written by `export`: the header email,created_at, then one address and
 * its time per line. Reports every bad line by number (1 is the header); blank lines are ignored.
 */
export async function readImportFile(path: string): Promise<ImportFile> {
  const text = await readText(path)
  let records: { record: string[]; info: { lines: number } }[]
  try {
    // With `info`, each record comes with where it ends; the typings describe the plain form only.
    records = parse(text, {
      info: true,
      relax_column_count: true,
      bom: true,
      skip_empty_lines: true,
      // Takes off the ' that export adds before a cell a spreadsheet would run as a formula.
      cast: (value, context) => fromCsvField(value, context.quoting),
    }) as unknown as typeof records
  } catch (error) {
    if (!(error instanceof CsvError)) throw error
    throw new ImportFileError(`${path} is not valid CSV: ${error.message}`)
  }
  const [header, ...rows] = records
  if (!header) throw new ImportFileError(`${path} is empty; expected the header line email,created_at`)
  // An export written before statuses existed has the first two columns only.
  const columns = [IMPORT_HEADER, EXPORT_HEADER].find((known) => header.record.join(',') === known.join(','))
  if (!columns) {
    const found = header.record.join(',').slice(0, 80)
    throw new ImportFileError(
      `${path} does not start with the header line email,created_at (found "${found}"); ` +
        'import reads the CSV that `npm run waitlist -- export` writes',
    )
  }
  const entries: Entry[] = []
  const problems: LineProblem[] = []
  const firstLine = new Map<string, number>()
  // csv-parse's info.lines is the line where a record ends, but it counts a CRLF inside a quoted
  // field as two lines (csv-parse 7.0.3); `doubled` takes those back off.
  let doubled = 0
  for (const { record, info } of rows) {
    const fields = record.join('')
    doubled += fields.split('\r\n').length - 1
    const line = info.lines - doubled - (fields.match(/\r\n|\r|\n/g)?.length ?? 0)
    const read = readRecord(record, columns)
    if (!('entry' in read)) {
      problems.push({ line, message: read.problem })
      continue
    }
    // The column is citext: addresses differing only in letter case are one entry.
    const key = read.entry.email.toLowerCase()
    const earlier = firstLine.get(key)
    if (earlier !== undefined) {
      problems.push({ line, message: `the same address as line ${earlier}` })
      continue
    }
    firstLine.set(key, line)
    entries.push(read.entry)
  }
  return { entries, problems }
}
