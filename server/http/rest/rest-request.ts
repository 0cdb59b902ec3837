import type { Context } from 'hono'
import { MAX_JSON_DEPTH, nestsTooDeep } from '../../base/json-depth'
import type { ApiRole } from '../../db/jwt-claims'
import { quoteIdent } from '../../db/sql-identifier'
import {
  invalidJson,
  keysMustMatch,
  missingColumn,
  unknownColumn,
  unparsableQuery,
  unsupportedMediaType,
  unsupportedParameter,
} from './postgrest-error'

export type Row = Record<string, unknown>
export type InsertRows = { rows: Row[]; keys: string[] }
/** The role the request's key carries, set once it is authenticated; an insert's rows, parsed once. */
export type RestEnv = { Variables: { role?: ApiRole; insertRows?: Promise<InsertRows> } }

/** `?columns="email","note"` as supabase-js sends it for an array insert: the union of the keys. */
export function parseColumnsParam(value: string | null): string[] | undefined {
  if (value === null) return undefined
  const names = value.split(',').map((name) => name.trim().replace(/^"(.*)"$/, '$1'))
  if (names.some((name) => name === '' || name.includes('"')))
    throw unparsableQuery(`"failed to parse columns parameter (${value.slice(0, 64)})"`)
  return names
}

/**
 * A body as PostgREST reads JSON: application/json only (PGRST102 otherwise, as PostgREST 12+ says),
 * its depth checked before JSON.parse (ADR 024), and JSON.
 */
export function parseJsonBody(contentType: string | null, text: string): unknown {
  const mediaType = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw unsupportedMediaType(mediaType ?? '')
  if (nestsTooDeep(text)) throw invalidJson(`The JSON nests deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return JSON.parse(text)
  } catch {
    throw invalidJson()
  }
}

/**
 * Reads a JSON body as PostgREST accepts it: one object, or an array of objects sharing their
 * keys. With `?columns=` the listed columns are inserted, keys a row lacks become null, and the
 * rows need not share keys. PostgREST quietly inserts nothing for a JSON scalar; we say PGRST102.
 */
export function parseRowsBody(contentType: string | null, text: string, columns?: string[]): InsertRows {
  const value = parseJsonBody(contentType, text)
  const rows = Array.isArray(value) ? value : [value]
  if (!rows.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row)))
    throw invalidJson('Expected a JSON object or an array of JSON objects')
  if (columns) return { rows: rows as Row[], keys: columns }
  const keys = Object.keys(rows[0] ?? {})
  if (rows.length === 1) return { rows: rows as Row[], keys }
  const signature = [...keys].sort().join(',')
  if (rows.some((row) => Object.keys(row).sort().join(',') !== signature)) throw keysMustMatch()
  return { rows: rows as Row[], keys }
}

/**
 * An insert's rows, parsed once from the body readBody has read and kept on the context: the rate
 * limit charges them (a body that does not parse costs one token), the insert writes them.
 */
export function insertRows(c: Context<RestEnv>): Promise<InsertRows> {
  let parsed = c.get('insertRows')
  if (!parsed) {
    const columns = searchParamsOf(c.req.url).get('columns')
    parsed = c.req.text().then((body) => {
      const listed = parseColumnsParam(columns)
      return parseRowsBody(c.req.header('content-type') ?? null, body, listed)
    })
    c.set('insertRows', parsed)
  }
  return parsed
}

// The rate limit's charge for a REST request: a token per row of an insert (ADR 017).
const tokenPerRow = ({ rows }: InsertRows) => rows.length
const oneToken = () => 1
export const rowsToCharge = (c: Context<RestEnv>) =>
  c.req.method === 'POST' ? insertRows(c).then(tokenPerRow, oneToken) : 1

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

/** The `Prefer` preferences this API honours (RFC 7240, as PostgREST reads them); others are ignored. */
export interface Preferences {
  /** Named by the client, which PostgREST then echoes; minimal when absent. */
  return?: 'minimal' | 'representation'
  count?: 'exact'
}

export function parsePrefer(header: string | null | undefined): Preferences {
  const preferences: Preferences = {}
  for (const item of (header ?? '').split(',')) {
    const [key, value] = item.split('=').map((part) => part.trim())
    if (key === 'return' && (value === 'minimal' || value === 'representation')) preferences.return = value
    if (key === 'count' && value === 'exact') preferences.count = value
  }
  return preferences
}

/** PostgREST's Preference-Applied: what it honoured, in its order; reads never echo return. */
export function appliedPreferences(preferences: Preferences, write: boolean): string | undefined {
  const applied: string[] = []
  if (write && preferences.return) applied.push(`return=${preferences.return}`)
  if (preferences.count) applied.push(`count=${preferences.count}`)
  return applied.length > 0 ? applied.join(', ') : undefined
}

/**
 * An insert's columns, each one the table has (else PGRST204, before anything is written), in the
 * table's order and each once: the insert's text depends only on which were sent.
 */
export function knownColumns(
  { rows, keys }: InsertRows,
  table: string,
  known: ReadonlySet<string>,
): InsertRows {
  for (const key of keys) if (!known.has(key)) throw unknownColumn(key, table)
  return { rows, keys: keys.length > 1 ? [...known].filter((column) => keys.includes(column)) : keys }
}
