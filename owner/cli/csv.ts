// A spreadsheet reads a cell starting with =, +, -, @, a tab or a CR as a formula (OWASP's CSV
// injection), and `=1+1-x@example.com` is a valid address. A leading ' is escaped too, so that
// undoing the escape is exact: every quoted field that starts with ' before one of these came from it.
const ESCAPED_START = /^[=+\-@\t\r']/
const ADDED_QUOTE = /^'[=+\-@\t\r']/

/**
 * RFC 4180: a field is quoted when it holds a quote, comma, CR or LF; quotes are doubled; CRLF ends
 * records. A field a spreadsheet would run as a formula gets a leading ' (which spreadsheets show
 * as text and do not display) and is quoted, which marks the ' as ours for `fromCsvField`.
 */
export function csvField(value: string): string {
  if (ESCAPED_START.test(value)) return `"'${value.replaceAll('"', '""')}"`
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

/**
 * A parsed field's value as it was before `csvField`: the ' it added is taken off. Only a quoted
 * field carries that mark, so an unquoted 'x@example.com (an older export, or a spreadsheet's) stays.
 */
export function fromCsvField(field: string, quoted: boolean): string {
  return quoted && ADDED_QUOTE.test(field) ? field.slice(1) : field
}

export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('')
}

/** The inverse of toCsv, for tests and for anyone reading an export back. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let quoting = false
  let wasQuoted = false
  const endField = () => {
    record.push(fromCsvField(field, wasQuoted))
    field = ''
    wasQuoted = false
  }
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (quoting) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (char === '"') quoting = false
      else field += char
    } else if (char === '"') {
      quoting = true
      wasQuoted = true
    } else if (char === ',') endField()
    else if (char === '\r' && text[i + 1] === '\n') {
      endField()
      records.push(record)
      record = []
      i++
    } else field += char
  }
  if (field !== '' || record.length > 0) {
    endField()
    records.push(record)
  }
  return records
}
