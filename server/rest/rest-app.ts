import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { type Database, isPgError } from '../db/database'
import type { ApiKeys, ApiRole, JwtClaims } from '../keys'
import type { Logger } from '../log'
import { authenticate } from './authenticate'
import { supabaseCors } from './cors'
import { statusForSqlState } from './pg-error-status'
import {
  internalError,
  methodNotAllowed,
  PostgrestError,
  payloadTooLarge,
  schemaNotExposed,
  unknownColumn,
  unknownTable,
} from './postgrest-error'
import { appliedPreferences, parsePrefer, type Preferences } from './prefer'
import { parseReadQuery } from './query-params'
import { parseRowsBody } from './request-body'
import type { SchemaCache } from './schema-cache'
import { deleteRows, insertRows, readRows, updateRows } from './table-sql'

export interface RestDeps {
  db: Database
  keys: ApiKeys
  schema: SchemaCache
  log: Logger
  maxBodyBytes?: number
}

export const MAX_BODY_BYTES = 16 * 1024

const JSON_TYPE = 'application/json; charset=utf-8'

function errorResponse(error: PostgrestError): Response {
  return new Response(JSON.stringify(error), {
    status: error.status,
    headers: { 'Content-Type': JSON_TYPE, ...error.headers },
  })
}

function checkProfile(request: Request) {
  const method = request.method
  const header = ['GET', 'HEAD'].includes(method) ? 'accept-profile' : 'content-profile'
  const profile = request.headers.get(header)
  if (profile !== null && profile !== 'public') throw schemaNotExposed(profile)
}

function checkColumns(keys: string[], table: string, known: ReadonlySet<string>) {
  for (const key of keys) if (!known.has(key)) throw unknownColumn(key, table)
}

function contentRange(offset: number, returned: number, total: number | undefined): string {
  const range = returned === 0 ? '*' : `${offset}-${offset + returned - 1}`
  return `${range}/${total ?? '*'}`
}

/** The Supabase-compatible REST endpoint: `/rest/v1/<table>`, PostgREST's contract for what it serves. */
export function createRestApp(deps: RestDeps): Hono {
  const { db, keys, schema, log } = deps
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES
  const app = new Hono()

  app.use(supabaseCors())
  app.use(bodyLimit({ maxSize: maxBodyBytes, onError: () => errorResponse(payloadTooLarge(maxBodyBytes)) }))

  function answer(body: string | undefined, status: number, preferences: Preferences, prefer: string | null, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { ...extra }
    const applied = appliedPreferences(preferences, prefer)
    if (applied) headers['Preference-Applied'] = applied
    if (body !== undefined) headers['Content-Type'] = JSON_TYPE
    return new Response(body ?? null, { status, headers })
  }

  async function handle(request: Request, table: string, claims: JwtClaims): Promise<Response> {
    checkProfile(request)
    const known = schema.get(table)
    if (!known) throw unknownTable(table, schema.has('waitlist') ? 'waitlist' : undefined)
    const url = new URL(request.url)
    const prefer = request.headers.get('prefer')
    const preferences = parsePrefer(prefer)
    const query = parseReadQuery(url.searchParams, table, known)
    const returning = preferences.return === 'representation' ? query.columns : undefined

    switch (request.method) {
      case 'POST': {
        const { rows, keys: columns } = parseRowsBody(request.headers.get('content-type'), await request.text())
        checkColumns(columns, table, known)
        const body = await db.asRole(claims, (tx) => insertRows(tx, table, columns, rows, returning))
        return answer(body, 201, preferences, prefer, { 'Content-Range': '*/*' })
      }
      case 'GET':
      case 'HEAD': {
        const result = await db.asRole(claims, (tx) => readRows(tx, table, query, preferences.count === 'exact'))
        const offset = query.offset ?? 0
        const range = contentRange(offset, result.returned, result.count)
        const body = request.method === 'HEAD' ? undefined : result.body
        // 206 when a known total is larger than the page served, as PostgREST answers.
        const partial = result.count !== undefined && result.returned > 0 && offset + result.returned < result.count
        return answer(body, partial || (result.count !== undefined && offset > 0) ? 206 : 200, preferences, prefer, {
          'Content-Range': range,
        })
      }
      case 'PATCH':
      case 'DELETE': {
        // As Supabase's pg-safeupdate does: a whole-table change needs an explicit filter.
        if (!query.where) {
          throw new PostgrestError(400, '21000', `${request.method === 'PATCH' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`)
        }
        let changes: Record<string, unknown> = {}
        if (request.method === 'PATCH') {
          const { rows, keys: columns } = parseRowsBody(request.headers.get('content-type'), await request.text())
          checkColumns(columns, table, known)
          changes = rows[0] ?? {}
          if (rows.length !== 1 || columns.length === 0) return answer(undefined, 204, preferences, prefer)
        }
        const result = await db.asRole(claims, (tx) =>
          request.method === 'PATCH'
            ? updateRows(tx, table, query, changes, returning)
            : deleteRows(tx, table, query, returning),
        )
        const range = contentRange(0, result.affected, undefined)
        return answer(result.body, result.body === undefined ? 204 : 200, preferences, prefer, { 'Content-Range': range })
      }
      default:
        throw methodNotAllowed(request.method)
    }
  }

  app.all('/:table', async (c) => {
    let role: ApiRole = 'anon'
    try {
      const claims = await authenticate(keys.secret, c.req.raw)
      role = claims.role
      return await handle(c.req.raw, c.req.param('table'), claims)
    } catch (error) {
      if (error instanceof PostgrestError) return errorResponse(error)
      if (isPgError(error)) {
        const status = statusForSqlState(error.code, role)
        if (status >= 500) log.error(`database error ${error.code} on ${c.req.method} ${c.req.path}:`, error)
        // PostgREST adds the challenge when a role without a login (anon) is refused.
        const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}
        return errorResponse(
          new PostgrestError(status, error.code, error.message, error.detail ?? null, error.hint ?? null, headers),
        )
      }
      log.error(`unexpected error on ${c.req.method} ${c.req.path}:`, error)
      return errorResponse(internalError())
    }
  })

  app.all('*', (c) => errorResponse(unknownTable(c.req.path.replace(/^\/+/, ''))))
  return app
}
