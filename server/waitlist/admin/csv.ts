// A spreadsheet reads a cell starting with =, +, -, @, a tab or a CR as a formula (OWASP's CSV
// injection), and `=1+1-x@example.com` is a valid address. A leading ' is escaped too, so that
// undoing the escape is exact: every quoted field that starts with ' before one of these came from it.
const ESCAPED_START = /^[=+\-@\t\r']/

/**
 * RFC 4180: a field is quoted when it holds a quote, comma, CR or LF; quotes are doubled; CRLF ends
 * records. A field a spreadsheet would run as a formula gets a leading ' (which spreadsheets show
 * as text and do not display) and is quoted, which marks the ' as ours for `fromCsvField`
 * (csv-reader.ts).
 */
export function csvField(value: string): string {
  if (ESCAPED_START.test(value)) return `"'${value.replaceAll('"', '""')}"`
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

/** One record, CRLF-terminated. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`
}

export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map(csvRecord).join('')
}
