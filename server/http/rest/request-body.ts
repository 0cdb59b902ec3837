import type { Context } from 'hono'
import { MAX_JSON_DEPTH, nestsTooDeep } from '../../base/json-depth'
import type { ApiRole } from '../../db/api-roles'
import { invalidJson, keysMustMatch, unparsableQuery, unsupportedMediaType } from './postgrest-error'
import { searchParamsOf } from './query-params'

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
 * Reads a JSON body as PostgREST accepts it: one object, or an array of objects sharing their
 * keys. With `?columns=` the listed columns are inserted, keys a row lacks become null, and the
 * rows need not share keys. PostgREST quietly inserts nothing for a JSON scalar; we say PGRST102.
 */
export function parseRowsBody(contentType: string | null, text: string, columns?: string[]): InsertRows {
  const mediaType = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw unsupportedMediaType(mediaType ?? '')
  if (nestsTooDeep(text)) throw invalidJson(`The JSON nests deeper than ${MAX_JSON_DEPTH} levels`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalidJson()
  }
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
