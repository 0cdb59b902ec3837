import pg from 'pg'

/**
 * A parameter as a quoted SQL literal of unknown type: the same text node-postgres sends for it in
 * the extended protocol (strings as they are, numbers and booleans as text, arrays in Postgres's
 * array syntax), so Postgres infers its type from the context exactly as it does for `$1`.
 * Escaped by node-postgres's own `escapeLiteral` (quotes doubled; backslashes doubled under E'').
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  const text = literalText(value)
  // A query string ends at NUL, so one inside a literal would cut the statement short. Postgres
  // refuses NUL in a text parameter; refuse it the same way, with the same code.
  if (text.includes('\0'))
    throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' })
  return pg.escapeLiteral(text)
}

function literalText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (Array.isArray(value)) return arrayText(value)
  throw new TypeError(`no SQL literal for a parameter of type ${typeof value}`)
}

// Postgres's array input syntax: every element double-quoted, `"` and `\` escaped by a backslash.
function arrayText(values: unknown[]): string {
  const elements = values.map((element) =>
    element === null || element === undefined
      ? 'NULL'
      : `"${literalText(element).replaceAll(/["\\]/g, (character) => `\\${character}`)}"`,
  )
  return `{${elements.join(',')}}`
}

/** An identifier, double-quoted (a table, a column, a role). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/**
 * Replaces `$1`, `$2`… with the parameters as literals, in one pass over the statement: text
 * inside quoted strings ('…') and quoted identifiers ("…") is copied untouched, and an inserted
 * literal is never scanned again. For statements this server builds (no dollar-quoting, no
 * comments), so that one round trip can carry the role switch and the statement together.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  let out = ''
  let index = 0
  while (index < sql.length) {
    const character = sql[index] ?? ''
    if (character === "'" || character === '"') {
      let end = index + 1
      // A doubled quote inside the quoted text is part of it.
      while (end < sql.length && (sql[end] !== character || sql[end + 1] === character))
        end += sql[end] === character ? 2 : 1
      out += sql.slice(index, end + 1)
      index = end + 1
      continue
    }
    const placeholder = character === '$' ? /^\$(\d+)/.exec(sql.slice(index, index + 8)) : null
    if (placeholder?.[1]) {
      const position = Number(placeholder[1])
      if (position < 1 || position > params.length)
        throw new RangeError(`statement names $${position} but has ${params.length} parameters`)
      out += sqlLiteral(params[position - 1])
      index += placeholder[0].length
      continue
    }
    out += character
    index += 1
  }
  return out
}
