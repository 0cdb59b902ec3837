/**
 * Reading back the CSV that csv.ts writes (RFC 4180), or that a spreadsheet saves (`;` or a tab
 * between cells in many locales, spaces around a quoted cell), a chunk at a time, with the line each
 * record starts on. A line without a quote, as nearly every line of an export is, is split with one
 * native call; a line with one is read character by character.
 */

// The ' that csvField adds before a cell a spreadsheet would run as a formula (ADR 018).
const ADDED_QUOTE = /^'[=+\-@\t\r']/

/**
 * A parsed field's value as it was before `csvField`: the ' it added is taken off. Only a quoted
 * field carries that mark, so an unquoted 'x@example.com (an older export, or a spreadsheet's) stays.
 */
export function fromCsvField(field: string, quoted: boolean): string {
  return quoted && ADDED_QUOTE.test(field) ? field.slice(1) : field
}

/** Not CSV: the message says what and on which line, as csv-parse's do. */
export class CsvSyntaxError extends Error {}

export interface CsvRecord {
  /** The line the record starts on, counting from 1. */
  line: number
  fields: string[]
}

// A record longer than this is an unclosed quote swallowing the file, not an entry.
const MAX_RECORD = 1024 * 1024

/** One record read from `at`: its fields, where the next starts, and how many lines it spans. */
interface Parsed {
  fields: string[]
  next: number
  lines: number
}

const LINE_BREAKS = /\r\n|\r|\n/g
const countLines = (text: string) => text.match(LINE_BREAKS)?.length ?? 0

/** Where the line end at `at` ends (CRLF, LF or CR); undefined when a CR may yet be followed by LF. */
function afterLineEnd(text: string, at: number, final: boolean): number | undefined {
  if (text.charCodeAt(at) !== 13) return at + 1
  if (at + 1 < text.length) return text.charCodeAt(at + 1) === 10 ? at + 2 : at + 1
  return final ? at + 1 : undefined
}

/** The quoted field starting at `at` (its opening quote), up to its closing quote. */
function quotedField(text: string, at: number, final: boolean, line: number) {
  let value = ''
  let from = at + 1
  for (;;) {
    const quote = text.indexOf('"', from)
    if (quote < 0 || (quote + 1 === text.length && !final)) {
      if (final)
        throw new CsvSyntaxError(`Quote Not Closed: the file ends inside the quote opened at line ${line}`)
      return undefined
    }
    value += text.slice(from, quote)
    if (text[quote + 1] !== '"') return { value, end: quote + 1, lines: countLines(value) }
    value += '"'
    from = quote + 2
  }
}

/** The delimiters import reads: a comma, a semicolon (a spreadsheet in a decimal-comma locale), a tab. */
export type Delimiter = ',' | ';' | '\t'

const fieldEnds: Record<Delimiter, RegExp> = { ',': /[,\r\n"]/g, ';': /[;\r\n"]/g, '\t': /[\t\r\n"]/g }
const lineEnd = /[\r\n]/g

/** Where spaces before a quote or after one end: a spreadsheet's `a; "b" ;c` is the cell b. */
function pastSpaces(text: string, at: number): number {
  let i = at
  while (text[i] === ' ') i++
  return i
}

/** A record with a quote somewhere, read field by field from `at`. */
function quotedRecord(
  text: string,
  at: number,
  final: boolean,
  line: number,
  delimiter: Delimiter,
): Parsed | undefined {
  const fields: string[] = []
  const fieldEnd = fieldEnds[delimiter]
  let lines = 1
  for (let i = at; ; ) {
    let end: number
    const start = pastSpaces(text, i)
    if (text[start] === '"') {
      const field = quotedField(text, start, final, line)
      if (!field) return undefined
      fields.push(fromCsvField(field.value, true))
      lines += field.lines
      end = pastSpaces(text, field.end)
    } else {
      fieldEnd.lastIndex = i
      end = fieldEnd.exec(text)?.index ?? text.length
      if (text[end] === '"')
        throw new CsvSyntaxError(
          `Invalid Opening Quote: a quote inside field ${fields.length + 1} at line ${line}`,
        )
      fields.push(text.slice(i, end))
    }
    if (end === text.length) return final ? { fields, next: end, lines } : undefined
    if (text[end] === delimiter) {
      i = end + 1
      continue
    }
    if (text[end] !== '\r' && text[end] !== '\n')
      throw new CsvSyntaxError(
        `Invalid Closing Quote: ${JSON.stringify(text[end])} after a quote at line ${line}`,
      )
    const next = afterLineEnd(text, end, final)
    return next === undefined ? undefined : { fields, next, lines }
  }
}

/** Reads CSV text pushed a chunk at a time; records come out whole, blank lines skipped. */
export class CsvReader {
  private rest = ''
  private line = 1
  private started = false

  constructor(private readonly delimiter: Delimiter = ',') {}

  /** The records complete in the text so far. */
  push(text: string): CsvRecord[] {
    // A byte order mark at the very start is not part of the first field.
    const chunk = !this.started && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
    if (chunk !== '') this.started = true
    this.rest += chunk
    return this.take(false)
  }

  /** The last record, once the text has all been pushed. */
  end(): CsvRecord[] {
    return this.take(true)
  }

  private take(final: boolean): CsvRecord[] {
    const records: CsvRecord[] = []
    const text = this.rest
    let at = 0
    let quote = text.indexOf('"')
    while (at < text.length) {
      if (quote >= 0 && quote < at) quote = text.indexOf('"', at)
      const parsed = this.record(text, at, quote, final)
      if (!parsed) break
      // A blank line is one empty, unquoted field: skipped, though it counts as a line.
      if (parsed.fields.length > 1 || parsed.fields[0] !== '' || text[at] === '"')
        records.push({ line: this.line, fields: parsed.fields })
      this.line += parsed.lines
      at = parsed.next
    }
    this.rest = text.slice(at)
    if (this.rest.length > MAX_RECORD)
      throw new CsvSyntaxError(
        `Quote Not Closed: the quote opened at line ${this.line} runs on for over 1 MB`,
      )
    return records
  }

  private record(text: string, at: number, quote: number, final: boolean): Parsed | undefined {
    lineEnd.lastIndex = at
    const end = lineEnd.exec(text)?.index ?? (final ? text.length : -1)
    if (quote >= 0 && (end < 0 || quote < end))
      return quotedRecord(text, at, final, this.line, this.delimiter)
    if (end < 0) return undefined
    const next = end === text.length ? end : afterLineEnd(text, end, final)
    return next === undefined
      ? undefined
      : { fields: text.slice(at, end).split(this.delimiter), next, lines: 1 }
  }
}

/**
 * The delimiter a file's first line uses: whichever of `,` `;` and a tab it holds most of outside
 * quotes (a comma when none), as a spreadsheet saved in any locale writes its header.
 */
export function delimiterOf(head: string): Delimiter {
  const counts = { ',': 0, ';': 0, '\t': 0 }
  let quoted = false
  for (const char of head) {
    if (char === '"') quoted = !quoted
    else if (!quoted && (char === '\n' || char === '\r')) break
    else if (!quoted && (char === ',' || char === ';' || char === '\t')) counts[char]++
  }
  const most = Math.max(counts[';'], counts['\t'])
  if (most <= counts[',']) return ','
  return counts[';'] === most ? ';' : '\t'
}

/** The records of a whole CSV text (the inverse of toCsv), for tests and for reading an export back. */
export function parseCsv(text: string, delimiter: Delimiter = ','): string[][] {
  const reader = new CsvReader(delimiter)
  return [...reader.push(text), ...reader.end()].map((record) => record.fields)
}
