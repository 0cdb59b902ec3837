import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CsvReader, type CsvRecord, CsvSyntaxError, delimiterOf, parseCsv } from '../../owner/cli/csv-reader'
import { CopyTextRows, copyTextLine } from '../../server/db/copy-text'
import { csvRecord } from '../../server/waitlist/admin/csv'

/** The records of `text` pushed in the pieces `cuts` makes of it. */
function readInPieces(text: string, cuts: number[]): CsvRecord[] {
  const reader = new CsvReader()
  const records: CsvRecord[] = []
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    records.push(...reader.push(text.slice(from, cut)))
    from = cut
  }
  records.push(...reader.push(text.slice(from)), ...reader.end())
  return records
}

// Fields as awkward as CSV gets: quotes, commas, CR, LF, CRLF, formula starts, non-ASCII.
const field = fc.stringMatching(/^[a-z"',=+@\r\n é-]{0,6}$/)
const rows = fc.array(fc.array(field, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 12 })

describe('reading CSV a chunk at a time', () => {
  it('gives the records csvRecord wrote, with the line each starts on, however the text is cut', () => {
    fc.assert(
      fc.property(rows, fc.array(fc.nat(), { maxLength: 6 }), (written, cuts) => {
        const text = written.map(csvRecord).join('')
        const records = readInPieces(
          text,
          cuts.map((cut) => cut % (text.length + 1)),
        )
        expect(records.map((record) => record.fields)).toEqual(written)
        let line = 1
        for (const [index, record] of records.entries()) {
          expect(record.line).toBe(line)
          const breaks = (value: string) => value.match(/\r\n|\r|\n/g)?.length ?? 0
          line += 1 + (written[index] ?? []).reduce((sum, value) => sum + breaks(value), 0)
        }
      }),
      { numRuns: 300, seed: 23 },
    )
  })

  it('skips blank lines and a byte order mark, but counts the lines', () => {
    const records = readInPieces('\ufeffemail,created_at\r\n\r\na,1\n\nb,2', [1, 20, 21])
    expect(records).toEqual([
      { line: 1, fields: ['email', 'created_at'] },
      { line: 3, fields: ['a', '1'] },
      { line: 5, fields: ['b', '2'] },
    ])
  })

  it('refuses a quote left open, a stray quote and text after a closing quote, naming the line', () => {
    const errors = ['a,b\r\n"open,x\r\n', 'a,b\r\nx"y,z\r\n', 'a,b\r\n"x"y,z\r\n'].map((text) => {
      try {
        parseCsv(text)
        return 'parsed'
      } catch (error) {
        return error instanceof CsvSyntaxError ? error.message : String(error)
      }
    })
    expect(errors).toEqual([
      'Quote Not Closed: the file ends inside the quote opened at line 2',
      'Invalid Opening Quote: a quote inside field 1 at line 2',
      'Invalid Closing Quote: "y" after a quote at line 2',
    ])
  })

  it('stops an unclosed quote from holding the whole file in memory', () => {
    const reader = new CsvReader()
    reader.push('email,created_at\r\n"a')
    expect(() => reader.push('x'.repeat(2 * 1024 * 1024))).toThrow(/runs on for over 1 MB/)
  })
})

describe("COPY's text format", () => {
  it('reads back what it writes, tabs, newlines and backslashes included, in any chunks', async () => {
    const written = [
      ['plain@example.com', '2024-11-01T09:00:00.000000Z'],
      ['tab\there', 'back\\slash'],
      ['new\nline', 'cr\rreturn'],
      ['ünïcødé', ''],
    ]
    const bytes = Buffer.from(written.map(copyTextLine).join(''))
    const rows = new CopyTextRows((fields) => `${JSON.stringify(fields)}\n`, 'header\n')
    const out: string[] = []
    rows.on('data', (chunk: Buffer) => out.push(chunk.toString()))
    // Cut inside a multibyte character and inside an escape.
    for (const [from, to] of [
      [0, 25],
      [25, 60],
      [60, 71],
      [71, bytes.length],
    ])
      rows.write(bytes.subarray(from, to))
    rows.end()
    await new Promise((resolve) => rows.on('end', resolve))
    const [header, ...lines] = out.join('').trimEnd().split('\n')
    expect(header).toBe('header')
    expect(lines.map((line) => JSON.parse(line))).toEqual(written)
    expect(rows.rows).toBe(written.length)
  })
})

describe('reading a spreadsheet saved in any locale', () => {
  it('takes the delimiter the header uses most: a comma, a semicolon or a tab', () => {
    expect(delimiterOf('email,name\r\n')).toBe(',')
    expect(delimiterOf('Name;E-Mail;"Firma, Ort"\r\na;b;c')).toBe(';')
    expect(delimiterOf('email\tname\tx;y\n')).toBe('\t')
    expect(delimiterOf('email\n')).toBe(',')
  })

  it('reads semicolons and tabs, quoted cells with spaces around them, CRLF', () => {
    expect(parseCsv('a; "b;c" ;d\r\n"e";;f\r\n', ';')).toEqual([
      ['a', 'b;c', 'd'],
      ['e', '', 'f'],
    ])
    expect(parseCsv('a\t"b\tc"\td\n', '\t')).toEqual([['a', 'b\tc', 'd']])
  })
})
