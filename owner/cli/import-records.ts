import { createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { ENTRY_COLUMNS } from '../../server/admin/import'
import { CsvReader, type CsvRecord, CsvSyntaxError } from './csv-reader'
import { ImportFileError } from './import-file-error'
import {
  type FileLayout,
  type ImportOptions,
  PLAIN_IMPORT,
  readLayout,
  recordProblems,
} from './import-layout'

/**
 * Reading a CSV file for `import` (an export, a plain list under the header `email`, or the lab's
 * own sheet), a chunk at a time: a file of any length in the memory of a chunk. Each record is
 * checked by the layout its header gives (import-layout.ts).
 */

const HEADERS =
  `email, and any of ${ENTRY_COLUMNS.slice(1)
    .map((column) => column.name)
    .join(',')} in any order (the columns \`npm run waitlist -- export\` writes; ` +
  "a question's column may be named by its id, role for answer_role), and any other column, which goes into the note"

/** One record after the header, with the line it starts on (1 is the header). */
export interface ImportRecord {
  line: number
  fields: string[]
  /** Why it cannot be imported, every reason; none when it can. */
  problems: string[]
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

/** The layout the header gives, or the file's problem: no header, or one without an email column. */
function readHeader(path: string, header: readonly string[] | undefined, options: ImportOptions): FileLayout {
  if (!header) throw new ImportFileError(`${path} is empty; its first line names the columns: ${HEADERS}`)
  const layout = readLayout(header, options)
  if (!('problem' in layout)) return layout
  const found = header.join(',').slice(0, 80)
  const why = found.includes('@')
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
  let header: string[] | undefined
  try {
    // The first record, when the start holds all of it.
    header = new CsvReader().push(head)[0]?.fields
  } catch {
    header = undefined
  }
  // Else the first line split at its commas: what is wrong further in is for the lines to say.
  header ??= head === '' ? undefined : (head.split(/\r\n|\r|\n/, 1)[0] ?? '').split(',')
  return readHeader(path, header, options)
}

/** What `checked` knows of the file: its layout, once the header has been read. */
interface FileState {
  layout: FileLayout | undefined
  /** The layout the caller expects (its COPY stages it), if it has read the header already. */
  expected: FileLayout | undefined
  options: ImportOptions
}

const headerOf = (layout: FileLayout) => layout.map((use) => use.header).join(',')

/** The records after the header, with their problems; the header's own problem is thrown. */
function* checked(records: CsvRecord[], path: string, state: FileState): Generator<ImportRecord> {
  for (const { line, fields } of records) {
    if (!state.layout) {
      state.layout = readHeader(path, fields, state.options)
      if (state.expected && headerOf(state.layout) !== headerOf(state.expected))
        throw new ImportFileError(`${path} changed while it was read: its header line is not the same`)
    } else yield { line, fields, problems: recordProblems(fields, state.layout, state.options) }
  }
}

/**
 * The file's records after its header, streamed a chunk's worth at a time, each with the line it
 * starts on and its problems, by the layout its header gives (`expected`, when given, as
 * checkImportFile read it). Blank lines are skipped; a problem with the whole file (not text, not
 * CSV, no header) throws an ImportFileError.
 */
export async function* importRecords(
  path: string,
  expected?: FileLayout,
  options: ImportOptions = PLAIN_IMPORT,
): AsyncGenerator<ImportRecord[]> {
  const decode = textDecoder(path)
  const reader = new CsvReader()
  const state: FileState = { layout: undefined, expected, options }
  try {
    // 32 KB at a time: a chunk's records (some 450 at seven fields) die young. Longer-lived ones reach
    // V8's old space, whose size then grows with the file: at 256 KB, peak RSS 137 MiB at 20,000 lines
    // and 195 MiB at 200,000; at 64 KB, once a line carried its marks' and consent's columns (issues 50
    // and 53), 45 MiB more at 200,000 than at 20,000; at 32 KB, 144 MiB at both.
    for await (const chunk of createReadStream(path, { highWaterMark: 32 * 1024 }))
      yield [...checked(reader.push(decode(chunk as Buffer)), path, state)]
    reader.push(decode())
    yield [...checked(reader.end(), path, state)]
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw new ImportFileError(`${path} is not valid CSV: ${error.message}`)
    throw error
  }
  if (!state.layout) readHeader(path, undefined, options)
}
