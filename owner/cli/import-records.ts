import { createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { ENTRY_COLUMNS } from '../../server/waitlist/admin/entry-columns'
import { CsvReader, type CsvRecord, CsvSyntaxError } from './csv-reader'

/**
 * Reading an `export` file for `import`, a chunk at a time: a file of any length in the memory of
 * a chunk. Its row parser, `recordProblem`, checks each field by ENTRY_COLUMNS.
 */

/** Something wrong with the file as a whole: missing, not text, not CSV, wrong header. */
export class ImportFileError extends Error {}

const HEADER = ENTRY_COLUMNS.map((column) => column.name).join(',')

/** One record after the header, with the line it starts on (1 is the header). */
export interface ImportRecord {
  line: number
  fields: string[]
  /** Why it cannot be imported, or undefined. */
  problem: string | undefined
}

/** The row parser: why import refuses this record, or undefined. */
export function recordProblem(fields: readonly string[]): string | undefined {
  if (fields.length !== ENTRY_COLUMNS.length)
    return `expected ${ENTRY_COLUMNS.length} fields (${HEADER}), found ${fields.length}`
  for (const [index, column] of ENTRY_COLUMNS.entries()) {
    const problem = column.problem(fields[index] ?? '')
    if (problem) return problem
  }
  return undefined
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

function headerProblem(path: string, header: readonly string[] | undefined): ImportFileError | undefined {
  if (!header) return new ImportFileError(`${path} is empty; expected the header line ${HEADER}`)
  if (header.join(',') === HEADER) return undefined
  return new ImportFileError(
    `${path} does not start with the header line ${HEADER} (found "${header.join(',').slice(0, 80)}"); ` +
      'import reads the CSV that `npm run waitlist -- export` writes',
  )
}

/**
 * What can be told from the file's start, before a database is opened: that it is a readable text
 * file starting with the header line. The lines are checked as they stream in.
 */
export async function checkImportFile(path: string): Promise<void> {
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
  header ??= head === '' ? undefined : head.split(/\r\n|\r|\n/, 1)
  const problem = headerProblem(path, header)
  if (problem) throw problem
}

/** The records after the header, with their problems; the header's own problem is thrown. */
function* checked(records: CsvRecord[], path: string, state: { header: boolean }): Generator<ImportRecord> {
  for (const { line, fields } of records) {
    if (state.header) {
      state.header = false
      const problem = headerProblem(path, fields)
      if (problem) throw problem
    } else yield { line, fields, problem: recordProblem(fields) }
  }
}

/**
 * The file's records after its header, streamed a chunk's worth at a time, each with the line it
 * starts on and its problem, if any. Blank lines are skipped; a problem with the whole file (not
 * text, not CSV, no header) throws an ImportFileError.
 */
export async function* importRecords(path: string): AsyncGenerator<ImportRecord[]> {
  const decode = textDecoder(path)
  const reader = new CsvReader()
  const state = { header: true }
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }))
      yield [...checked(reader.push(decode(chunk as Buffer)), path, state)]
    reader.push(decode())
    yield [...checked(reader.end(), path, state)]
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw new ImportFileError(`${path} is not valid CSV: ${error.message}`)
    throw error
  }
  if (state.header) throw headerProblem(path, undefined)
}
