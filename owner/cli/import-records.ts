import { createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { CsvReader, type CsvRecord, CsvSyntaxError, type Delimiter, delimiterOf } from './csv-reader'
import { type DateReading, decideOrder } from './import-dates'
import { ImportFileError } from './import-file-error'
import { type FileLayout, type ImportOptions, PLAIN_IMPORT, readLayout } from './import-layout'
import { readRow } from './import-row'

/**
 * Reading a CSV file for `import` (an export, a plain list under the header `email`, the lab's own
 * sheet, or the export of a form, a mailing list or an event), a chunk at a time: a file of any
 * length in the memory of a chunk. The header and the first rows give the layout
 * (import-layout.ts); the first 1,000 rows the order of its dates (import-dates.ts); each row is
 * then read by import-row.ts.
 */

const HEADERS =
  'email (or Email Address, E-mail, a question asking for it), and any others: the columns `npm run waitlist -- export` ' +
  'writes, a name, first and last name, company, a sign-up time, tags, and any column of its own, kept as a detail'

/** One record after the header, with the line it starts on (1 is the header). */
export interface ImportRecord {
  line: number
  /** The values staged (import-row.ts), when it can be imported. */
  staged?: string[]
  /** Why it cannot be imported, every reason; none when it can or when it is skipped. */
  problems: string[]
  /** Why it was skipped (no usable address): the rest go in. */
  skipped?: string
}

const notText = (path: string) =>
  `${path} is not a CSV text file (as written by \`npm run waitlist -- export\`)`

/** Bytes to text a chunk at a time (none: the end), refusing a NUL byte or anything not UTF-8. */
function textDecoder(path: string): (chunk?: Buffer) => string {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  return (chunk) => {
    if (chunk?.includes(0)) throw new ImportFileError(notText(path))
    try {
      return decoder.decode(chunk, { stream: chunk !== undefined })
    } catch {
      throw new ImportFileError(`${notText(path)}: it is not UTF-8`)
    }
  }
}

/** The layout the header and the first rows give, or the file's problem: no header, or no address column. */
function readHeader(
  path: string,
  records: readonly (readonly string[])[],
  options: ImportOptions,
  delimiter: Delimiter,
): FileLayout {
  const [header, ...sample] = records
  if (!header) throw new ImportFileError(`${path} is empty; its first line names the columns: ${HEADERS}`)
  const layout = readLayout(header, options, delimiter, sample)
  if (!('problem' in layout)) return layout
  const found = header.join(delimiter).slice(0, 80)
  const why =
    found.includes('@') && !/[a-z]/i.test(found.replace(/\S+@\S+/g, ''))
      ? 'the first line is an address: put a line with the word email above the list'
      : layout.problem
  throw new ImportFileError(
    `${path} does not start with a header line import reads (found "${found}"): ${why}. ` +
      `The first line names the columns: ${HEADERS}`,
  )
}

/**
 * What can be told from the file's start, before a database is opened: that it is a readable text
 * file starting with a header line import reads, and so which columns it has. The lines are checked
 * as they stream in.
 */
export async function checkImportFile(
  path: string,
  options: ImportOptions = PLAIN_IMPORT,
): Promise<FileLayout> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new ImportFileError(
      error.code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read it (${error.code})`,
    )
  })
  if (!info.isFile()) throw new ImportFileError(`${path} is not a file`)
  const file = await open(path, 'r')
  const start = Buffer.alloc(64 * 1024)
  const { bytesRead } = await file.read(start, 0, start.length, 0).finally(() => file.close())
  const head = textDecoder(path)(start.subarray(0, bytesRead))
  const delimiter = delimiterOf(head.replace(/^\ufeff/, ''))
  let records: string[][]
  try {
    // The first records, those the start holds whole: the header, and rows to read addresses in.
    records = new CsvReader(delimiter).push(head).map((record) => record.fields)
  } catch {
    records = []
  }
  // Else the first line split at its delimiter: what is wrong further in is for the lines to say.
  if (records.length === 0 && head !== '')
    records = [(head.replace(/^\ufeff/, '').split(/\r\n|\r|\n/, 1)[0] ?? '').split(delimiter)]
  return readHeader(path, records, options, delimiter)
}

// The rows the order of a file's slashed dates is decided from (ADR 116); they wait, in memory, until then.
const DATE_SAMPLE = 1000

/** What the reading knows of the file as it streams: its layout, whether the header passed, its dates. */
interface FileState {
  layout: FileLayout
  options: ImportOptions
  importTime: string
  header: boolean
  dates: DateReading
  /** The first rows, held until the order of their dates is decided; undefined once it is. */
  waiting: CsvRecord[] | undefined
}

/** The cells of the sample that hold dates: those of the time columns. */
function dateCells(records: readonly CsvRecord[], layout: FileLayout): string[] {
  const columns = layout.uses.flatMap((use, index) =>
    'column' in use && use.column.type.startsWith('timestamptz') ? [index] : [],
  )
  return records.flatMap(({ fields }) => columns.map((index) => fields[index] ?? ''))
}

/** Decides the order of the file's dates from its first rows, or asks the owner when they cannot tell. */
function decideDates(path: string, state: FileState, records: readonly CsvRecord[]) {
  if (state.dates.order) return
  const { order, ambiguous } = decideOrder(dateCells(records, state.layout))
  if (order) state.dates = { ...state.dates, order, decided: 'rows' }
  else if (ambiguous)
    throw new ImportFileError(
      `${path}: its dates (such as ${JSON.stringify(ambiguous)}) could be month or day first, and its first ` +
        `${DATE_SAMPLE.toLocaleString('en')} rows do not tell; say which: --dates mdy (10/14/2024) or --dates dmy (14/10/2024)`,
    )
}

/** A row every cell of which is empty: a spreadsheet's blank row, skipped as a blank line is. */
const blank = (fields: readonly string[]) => fields.every((field) => field.trim() === '')

function* rowsOf(records: readonly CsvRecord[], state: FileState): Generator<ImportRecord> {
  for (const { line, fields } of records) {
    if (blank(fields)) continue
    yield { line, ...readRow(fields, state) }
  }
}

/** The records after the header, read; the first DATE_SAMPLE wait until the file's date order is known. */
function* checked(
  records: CsvRecord[],
  path: string,
  state: FileState,
  final: boolean,
): Generator<ImportRecord> {
  let rows = records
  if (!state.header && rows[0]) {
    if (rows[0].fields.join('\u0000') !== state.layout.header)
      throw new ImportFileError(`${path} changed while it was read: its header line is not the same`)
    state.header = true
    rows = rows.slice(1)
  }
  if (state.waiting) {
    state.waiting.push(...rows)
    if (state.waiting.length < DATE_SAMPLE && !final) return
    rows = state.waiting
    state.waiting = undefined
    decideDates(path, state, rows)
  }
  yield* rowsOf(rows, state)
}

/**
 * The file's records after its header, streamed a chunk's worth at a time, each with the line it
 * starts on and what it gives (import-row.ts), by the layout checkImportFile read. Blank lines and
 * rows are skipped; a problem with the whole file (not text, not CSV, dates that cannot be told)
 * throws an ImportFileError. `importTime` is what a row without a sign-up time takes.
 */
export async function* importRecords(
  path: string,
  layout: FileLayout,
  options: ImportOptions = PLAIN_IMPORT,
  importTime: string = new Date().toISOString(),
): AsyncGenerator<ImportRecord[]> {
  const decode = textDecoder(path)
  const reader = new CsvReader(layout.delimiter)
  const dates: DateReading = {
    order: options.dates,
    decided: options.dates ? 'flag' : undefined,
    timeZone: options.timeZone,
  }
  const state: FileState = { layout, options, importTime, header: false, dates, waiting: [] }
  try {
    // 32 KB at a time: a chunk's records (some 450 at seven fields) die young. Longer-lived ones reach
    // V8's old space, whose size then grows with the file: at 256 KB, peak RSS 137 MiB at 20,000 lines
    // and 195 MiB at 200,000; at 64 KB, once a line carried its marks' and consent's columns (issues 50
    // and 53), 45 MiB more at 200,000 than at 20,000; at 32 KB, 144 MiB at both.
    for await (const chunk of createReadStream(path, { highWaterMark: 32 * 1024 }))
      yield [...checked(reader.push(decode(chunk as Buffer)), path, state, false)]
    reader.push(decode())
    yield [...checked(reader.end(), path, state, true)]
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw new ImportFileError(`${path} is not valid CSV: ${error.message}`)
    throw error
  }
  if (!state.header) readHeader(path, [], options, layout.delimiter)
}
