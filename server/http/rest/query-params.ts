import { quoteIdent } from '../../db/sql-identifier'
import { missingColumn, unparsableQuery, unsupportedParameter } from './postgrest-error'

/** Refuses any parameter the method does not read (filters, on_conflict, ...): never silently ignored. */
export function checkParams(search: URLSearchParams, allowed: ReadonlySet<string>): void {
  for (const key of search.keys()) if (!allowed.has(key)) throw unsupportedParameter(key.slice(0, 64))
}

// PostgREST reads limit and offset with readMaybe: anything that is not a number is ignored.
const nonNegativeInt = (value: string | null) =>
  value && /^\d{1,9}$/.test(value) ? Number(value) : undefined

function checkColumn(column: string, table: string, known: ReadonlySet<string>): string {
  if (!known.has(column)) throw missingColumn(column, table)
  return quoteIdent(column)
}

/** `?select=` as the SQL list it names: `*`, or column names. */
export function parseSelect(value: string | null, table: string, known: ReadonlySet<string>): string {
  if (value === null || value.trim() === '*') return '*'
  const columns = value.split(',').map((item) => {
    const name = item.trim()
    // Casts, aliases, embedding and aggregates are PostgREST features this one table does not need.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw unparsableQuery(
        `"failed to parse select parameter (${value.slice(0, 128)})"`,
        `unsupported select item: ${name.slice(0, 64)}`,
      )
    return checkColumn(name, table, known)
  })
  return columns.join(', ')
}

// supabase-js's `.order()`: a column, then asc or desc, then nullsfirst or nullslast.
const ORDER_MODIFIERS: Readonly<Record<string, string>> = {
  asc: 'asc',
  desc: 'desc',
  nullsfirst: 'nulls first',
  nullslast: 'nulls last',
}

function parseOrder(value: string | null, table: string, known: ReadonlySet<string>): string {
  if (value === null) return ''
  const terms = value.split(',').map((term) => {
    const [column = '', ...modifiers] = term.split('.')
    const sql = modifiers.map((modifier) => ORDER_MODIFIERS[modifier])
    if (sql.includes(undefined)) {
      const expected = 'expecting "asc", "desc", "nullsfirst" or "nullslast"'
      throw unparsableQuery(`"failed to parse order (${value.slice(0, 128)})"`, expected)
    }
    return [checkColumn(column.trim(), table, known), ...sql].join(' ')
  })
  return ` order by ${terms.join(', ')}`
}

/** What a read may ask for of PostgREST's URL grammar (ADR 063), as SQL: known columns only. */
export type ReadQuery = ReturnType<typeof parseReadQuery>

export function parseReadQuery(search: URLSearchParams, table: string, known: ReadonlySet<string>) {
  return {
    columns: parseSelect(search.get('select'), table, known),
    orderBy: parseOrder(search.get('order'), table, known),
    limit: nonNegativeInt(search.get('limit')),
    offset: nonNegativeInt(search.get('offset')),
  }
}

/** A request URL's query, read without parsing the whole URL (a request's URL has no fragment). */
export function searchParamsOf(requestUrl: string): URLSearchParams {
  const start = requestUrl.indexOf('?')
  return new URLSearchParams(start === -1 ? '' : requestUrl.slice(start + 1))
}
