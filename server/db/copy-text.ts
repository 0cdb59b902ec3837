import { Transform, type TransformCallback } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'

/**
 * PostgreSQL's COPY text format (https://www.postgresql.org/docs/current/sql-copy.html): one row a
 * line, fields split by tabs, a backslash escaping the characters that would break that up.
 */

const DECODED: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' }

function unescapeField(field: string): string {
  if (!field.includes('\\')) return field
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code[0] === 'x') return String.fromCharCode(Number.parseInt(code.slice(1), 16))
    if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8))
    return DECODED[code] ?? code
  })
}

/** One field as COPY … FROM STDIN (text format) reads it back unchanged. */
export function copyTextField(value: string): string {
  return /[\\\t\n\r]/.test(value)
    ? value.replace(
        /[\\\t\n\r]/g,
        (char) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[char] ?? char,
      )
    : value
}

/** One row of fields as a COPY text line. */
export function copyTextLine(fields: readonly string[]): string {
  return `${fields.map(copyTextField).join('\t')}\n`
}

/**
 * Reads the output of `COPY … TO STDOUT` (text format) and writes each row as `format` renders it,
 * a chunk at a time: memory holds one chunk, whatever the number of rows. `header`, if any, comes
 * out first, once the first chunk has arrived (or at the end, when there are no rows), so a reader
 * who gets a first byte knows the database has answered.
 */
export class CopyTextRows extends Transform {
  /** Rows read so far. */
  rows = 0
  private readonly decoder = new StringDecoder('utf8')
  private rest = ''
  private header: string

  constructor(
    private readonly format: (fields: string[]) => string,
    header = '',
  ) {
    super()
    this.header = header
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const text = this.rest + this.decoder.write(chunk)
    const end = text.lastIndexOf('\n')
    this.rest = text.slice(end + 1)
    this.pass(end < 0 ? '' : this.render(text.slice(0, end)), done)
  }

  override _flush(done: TransformCallback): void {
    const text = this.rest + this.decoder.end()
    this.pass(text === '' ? '' : this.render(text), done)
  }

  private render(lines: string): string {
    let out = ''
    for (const line of lines.split('\n')) {
      out += this.format(line.split('\t').map(unescapeField))
      this.rows++
    }
    return out
  }

  private pass(text: string, done: TransformCallback): void {
    const out = this.header + text
    this.header = ''
    done(null, out === '' ? undefined : out)
  }
}
