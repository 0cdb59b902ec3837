import { quoteIdent } from '../../db/sql-identifier'
import { missingColumn, unparsableQuery } from './postgrest-error'

/** The subset of PostgREST's URL grammar this API serves: select, order, limit, offset and simple filters. */
export interface ReadQuery {
  columns: string[] | '*'
  where: string
  params: unknown[]
  orderBy: string
  limit: number | undefined
  offset: number | undefined
}

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict', 'apikey'])

const OPERATORS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'like',
  ilike: 'ilike',
}

// PostgREST reads limit and offset with readMaybe: anything that is not a number is ignored.
function nonNegativeInt(value: string | null): number | undefined {
  if (value === null || !/^\d{1,9}$/.test(value)) return undefined
  return Number(value)
}

function checkColumn(column: string, table: string, known: ReadonlySet<string>): string {
  if (!known.has(column)) throw missingColumn(column, table)
  return quoteIdent(column)
}

function parseSelect(value: string | null, table: string, known: ReadonlySet<string>): string[] | '*' {
  if (value === null || value.trim() === '*') return '*'
  const names = value.split(',').map((name) => name.trim())
  for (const name of names) {
    // Casts, aliases, embedding and aggregates are PostgREST features this one table does not need.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw unparsableQuery(
        `"failed to parse select parameter (${value.slice(0, 128)})"`,
        `unsupported select item: ${name.slice(0, 64)}`,
      )
    }
    checkColumn(name, table, known)
  }
  return names
}

function parseOrder(value: string | null, table: string, known: ReadonlySet<string>): string {
  if (value === null) return ''
  let position = 0 // where each term starts, for parsec's "(line 1, column N)"
  const terms = value.split(',').map((term) => {
    const [column = '', ...modifiers] = term.split('.')
    const parts = [checkColumn(column.trim(), table, known)]
    let at = position + column.length + 1
    for (const modifier of modifiers) {
      if (modifier === 'asc' || modifier === 'desc') parts.push(modifier)
      else if (modifier === 'nullsfirst') parts.push('nulls first')
      else if (modifier === 'nullslast') parts.push('nulls last')
      else {
        throw unparsableQuery(
          `"failed to parse order (${value.slice(0, 128)})" (line 1, column ${at + 1})`,
          `unexpected "${modifier.slice(0, 1)}" expecting "asc", "desc", "nullsfirst" or "nullslast"`,
        )
      }
      at += modifier.length + 1
    }
    position += term.length + 1
    return parts.join(' ')
  })
  return ` order by ${terms.join(', ')}`
}

function parseFilters(
  search: URLSearchParams,
  table: string,
  known: ReadonlySet<string>,
  params: unknown[],
): string {
  const conditions: string[] = []
  for (const [key, raw] of search) {
    if (RESERVED.has(key)) continue
    const column = checkColumn(key, table, known)
    const dot = raw.indexOf('.')
    const operator = dot < 0 ? raw : raw.slice(0, dot)
    const operand = dot < 0 ? '' : raw.slice(dot + 1)
    const sqlOperator = OPERATORS[operator]
    if (sqlOperator) {
      // The parameter takes the column's type, as in PostgREST: `id=eq.abc` is Postgres's 22P02,
      // and `email=eq.X` compares case-insensitively because email is citext.
      params.push(operand)
      conditions.push(`${column} ${sqlOperator} $${params.length}`)
    } else if (operator === 'is' && ['null', 'true', 'false'].includes(operand)) {
      conditions.push(`${column} is ${operand}`)
    } else if (operator === 'in' && /^\(.*\)$/.test(operand)) {
      params.push(operand.slice(1, -1).split(','))
      conditions.push(`${column} = any($${params.length})`)
    } else {
      throw unparsableQuery(`"failed to parse filter (${raw.slice(0, 128)})"`)
    }
  }
  return conditions.length > 0 ? ` where ${conditions.join(' and ')}` : ''
}

export function parseReadQuery(
  search: URLSearchParams,
  table: string,
  known: ReadonlySet<string>,
): ReadQuery {
  const params: unknown[] = []
  return {
    columns: parseSelect(search.get('select'), table, known),
    where: parseFilters(search, table, known, params),
    params,
    orderBy: parseOrder(search.get('order'), table, known),
    limit: nonNegativeInt(search.get('limit')),
    offset: nonNegativeInt(search.get('offset')),
  }
}

export function selectList(columns: string[] | '*'): string {
  return columns === '*' ? '*' : columns.map(quoteIdent).join(', ')
}

/** A request URL's query, read without parsing the whole URL (a request's URL has no fragment). */
export function searchParamsOf(requestUrl: string): URLSearchParams {
  const start = requestUrl.indexOf('?')
  return new URLSearchParams(start === -1 ? '' : requestUrl.slice(start + 1))
}
