/** A quoted SQL identifier: the only SQL text built from a request (column names, already checked against the schema). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
