import { type Context, Hono } from 'hono'
import type { Logger } from '../../boot/log'
import { type Database, isPgError } from '../../db/database'
import type { ApiKeys, ApiRole, JwtClaims } from '../keys'
import { bodyLimit } from '../middleware/body-limit'
import { authenticate } from './authenticate'
import { CORS_HEADERS, supabaseCors } from './cors'
import { cachedVerifier } from './key-cache'
import { statusForSqlState } from './pg-error-status'
import {
  databaseUnavailable,
  internalError,
  methodNotAllowed,
  missingColumn,
  notSingleObject,
  PostgrestError,
  payloadTooLarge,
  rangeNotSatisfiable,
  schemaNotExposed,
  unacceptableMediaType,
  unknownColumn,
  unknownFunction,
  unknownTable,
} from './postgrest-error'
import { appliedPreferences, type Preferences, parsePrefer } from './prefer'
import { parseReadQuery } from './query-params'
import { parseColumnsParam, parseRowsBody } from './request-body'
import type { RowCharge } from './row-charge'
import type { SchemaCache } from './schema-cache'
import {
  deleteStatement,
  insertStatement,
  readStatement,
  runIn,
  type TableStatement,
  updateStatement,
  type WriteResult,
} from './table-sql'

export interface RestDeps {
  db: Database
  keys: ApiKeys
  schema: SchemaCache
  log: Logger
  maxBodyBytes?: number
  /** Charges an insert's rows past the first to the client's rate limit (not for service_role). */
  chargeRows?: RowCharge
}

export const MAX_BODY_BYTES = 16 * 1024

const JSON_TYPE = 'application/json; charset=utf-8'
const OBJECT_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8'

function errorResponse(error: PostgrestError): Response {
  return new Response(JSON.stringify(error), {
    status: error.status,
    headers: { 'Content-Type': JSON_TYPE, ...CORS_HEADERS, ...error.headers },
  })
}

/** Content-Profile for writes, Accept-Profile for reads; only `public` is exposed. */
function checkProfile(request: Request): boolean {
  const header = ['GET', 'HEAD'].includes(request.method) ? 'accept-profile' : 'content-profile'
  const profile = request.headers.get(header)
  if (profile !== null && profile !== 'public') throw schemaNotExposed()
  return profile !== null
}

/**
 * What the client accepts: a JSON array (PostgREST's default), or one bare object
 * (`application/vnd.pgrst.object+json`, supabase-js's `.single()`). CSV, GeoJSON and plans are
 * PostgREST features we do not serve, so they get its 406 rather than JSON they did not ask for.
 */
function negotiate(accept: string | null): 'array' | 'object' {
  if (!accept) return 'array'
  const types = accept.split(',').map((item) => item.split(';')[0]?.trim().toLowerCase() ?? '')
  for (const type of types) {
    if (type === 'application/vnd.pgrst.object+json' || type === 'application/vnd.pgrst.object')
      return 'object'
    if (['*/*', 'application/*', 'application/json', ''].includes(type)) return 'array'
  }
  throw unacceptableMediaType(accept.slice(0, 128))
}

/** A JSON array of exactly one row as the bare object; otherwise PGRST116, thrown inside the transaction so a write rolls back. */
function singleObject(body: string, rows: number): string {
  if (rows !== 1) throw notSingleObject(rows)
  return JSON.stringify((JSON.parse(body) as unknown[])[0])
}

function checkColumns(keys: string[], table: string, known: ReadonlySet<string>) {
  for (const key of keys) if (!known.has(key)) throw unknownColumn(key, table)
}

function contentRange(offset: number, returned: number, total: number | undefined): string {
  const range = returned === 0 ? '*' : `${offset}-${offset + returned - 1}`
  return `${range}/${total ?? '*'}`
}

// The nearest exposed table to a mistyped name, as PostgREST's fuzzy hint (only close matches).
function closestTable(name: string, schema: SchemaCache): string | undefined {
  const lower = name.toLowerCase()
  return [...schema.keys()].find((table) => {
    if (Math.abs(table.length - lower.length) > 2) return false
    return lower.startsWith(table) || table.startsWith(lower) || editDistance(table, lower) <= 2
  })
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

// node-postgres' errors when the server is gone: PostgREST says PGRST000 and 503 then. ENOENT is
// a Unix socket whose file is gone (the embedded cluster restarting).
function isConnectionError(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENOENT)$/.test(code)
  ) {
    return true
  }
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)
  )
}

/** The Supabase-compatible REST endpoint: `/rest/v1/<table>`, PostgREST's contract for what it serves. */
export function createRestApp(deps: RestDeps): Hono {
  const { db, keys, schema, log } = deps
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES
  const verify = cachedVerifier(keys.secret)
  const app = new Hono()

  app.use(supabaseCors())
  app.use(bodyLimit(maxBodyBytes, () => errorResponse(payloadTooLarge(maxBodyBytes))))

  function answer(
    body: string | undefined,
    status: number,
    preferences: Preferences,
    context: { mutation: boolean; shape: 'array' | 'object'; profiled: boolean },
    extra: Record<string, string> = {},
  ) {
    const headers: Record<string, string> = { ...CORS_HEADERS, ...extra }
    const applied = appliedPreferences(preferences, context.mutation)
    if (applied) headers['Preference-Applied'] = applied
    if (context.profiled) headers['Content-Profile'] = 'public'
    if (body !== undefined) headers['Content-Type'] = context.shape === 'object' ? OBJECT_TYPE : JSON_TYPE
    return new Response(body ?? null, { status, headers })
  }

  /**
   * A write, as the key's role, in one round trip. A write whose rows the client wants back as one
   * object (`.single()`) must not be committed when it touches other than one row (PostgREST's
   * PGRST116), so that one runs in a full transaction and is checked before the commit.
   */
  async function write(
    claims: JwtClaims,
    statement: TableStatement<WriteResult>,
    shape: 'array' | 'object',
  ): Promise<WriteResult> {
    if (shape === 'array' || !statement.returnsBody)
      return statement.read(await db.runAsRole(claims, statement))
    return db.asRole(claims, async (tx) => {
      const result = await runIn(tx, statement)
      return {
        ...result,
        body: result.body === undefined ? undefined : singleObject(result.body, result.affected),
      }
    })
  }

  async function handle(c: Context, table: string, claims: JwtClaims): Promise<Response> {
    const request = c.req.raw
    const profiled = checkProfile(request)
    const known = schema.get(table)
    if (!known) throw unknownTable(table, closestTable(table, schema))
    const shape = negotiate(request.headers.get('accept'))
    const url = new URL(request.url)
    const preferences = parsePrefer(request.headers.get('prefer'))
    const query = parseReadQuery(url.searchParams, table, known)
    const returning = preferences.return === 'representation' ? query.columns : undefined
    const context = { mutation: !['GET', 'HEAD'].includes(request.method), shape, profiled }
    const shaped = (body: string | undefined, rows: number) =>
      body !== undefined && shape === 'object' ? singleObject(body, rows) : body

    switch (request.method) {
      case 'POST': {
        const columns = parseColumnsParam(url.searchParams.get('columns'))
        const { rows, keys: names } = parseRowsBody(
          request.headers.get('content-type'),
          await request.text(),
          columns,
        )
        // One token per row for the public keys; a single object (the page's insert) costs nothing more.
        if (rows.length > 1 && claims.role !== 'service_role') deps.chargeRows?.(c, rows.length)
        checkColumns(names, table, known)
        const target = parseColumnsParam(url.searchParams.get('on_conflict'))
        if (target) for (const column of target) if (!known.has(column)) throw missingColumn(column, table)
        // A merge needs a conflict target; without ?on_conflict= (PostgREST would use the primary
        // key, which a client never sends) the preference is not applied, and not echoed.
        if (preferences.resolution === 'merge-duplicates' && !target) preferences.resolution = undefined
        const upsert = preferences.resolution ? { resolution: preferences.resolution, target } : undefined
        const result = await write(claims, insertStatement(table, names, rows, returning, upsert), shape)
        // PostgREST: `*/*`, or `*/<rows inserted>` when a count was asked for.
        const range = preferences.count ? `*/${result.affected}` : '*/*'
        return answer(result.body, 201, preferences, context, { 'Content-Range': range })
      }
      case 'GET':
      case 'HEAD': {
        const statement = readStatement(table, query, preferences.count !== undefined)
        const result = statement.read(await db.runAsRole(claims, statement))
        const offset = query.offset ?? 0
        const total = result.count
        if (total !== undefined && offset > total) throw rangeNotSatisfiable(offset, total)
        const body = request.method === 'HEAD' ? undefined : shaped(result.body, result.returned)
        // PostgREST's rangeStatus: 206 when a known total is larger than the page served.
        const status = total !== undefined && result.returned < total ? 206 : 200
        return answer(body, status, preferences, context, {
          'Content-Range': contentRange(offset, result.returned, total),
        })
      }
      case 'PATCH':
      case 'DELETE': {
        // As Supabase's pg-safeupdate does: a whole-table change needs an explicit filter.
        if (!query.where) {
          throw new PostgrestError(
            400,
            '21000',
            `${request.method === 'PATCH' ? 'UPDATE' : 'DELETE'} requires a WHERE clause`,
          )
        }
        let changes: Record<string, unknown> = {}
        if (request.method === 'PATCH') {
          const { rows, keys: names } = parseRowsBody(
            request.headers.get('content-type'),
            await request.text(),
          )
          checkColumns(names, table, known)
          changes = rows[0] ?? {}
          if (rows.length !== 1 || names.length === 0) return answer(undefined, 204, preferences, context)
        }
        const statement =
          request.method === 'PATCH'
            ? updateStatement(table, query, changes, returning)
            : deleteStatement(table, query, returning)
        const result = await write(claims, statement, shape)
        const range = contentRange(0, result.affected, preferences.count ? result.affected : undefined)
        return answer(result.body, result.body === undefined ? 204 : 200, preferences, context, {
          'Content-Range': range,
        })
      }
      default:
        throw methodNotAllowed(request.method)
    }
  }

  // The gateway checks the key before anything else, so even a path we do not serve needs one.
  const refuse = (notFound: (path: string) => PostgrestError) => async (c: Context) => {
    try {
      await authenticate(verify, c.req.raw)
      return errorResponse(notFound(c.req.path))
    } catch (error) {
      if (error instanceof PostgrestError) return errorResponse(error)
      log.error(`unexpected error on ${c.req.method} ${c.req.path}:`, error)
      return errorResponse(internalError())
    }
  }

  // Functions are not part of this API; say so as PostgREST does for one it cannot find.
  app.all(
    '/rpc/:name',
    refuse((path) => unknownFunction(path.split('/').pop() ?? '')),
  )

  app.all('/:table', async (c) => {
    let role: ApiRole = 'anon'
    try {
      const claims = await authenticate(verify, c.req.raw)
      role = claims.role
      return await handle(c, c.req.param('table'), claims)
    } catch (error) {
      if (error instanceof PostgrestError) return errorResponse(error)
      if (isPgError(error)) {
        const status = statusForSqlState(error.code, role)
        if (status >= 500) log.error(`database error ${error.code} on ${c.req.method} ${c.req.path}:`, error)
        // PostgREST adds the challenge when a role without a login (anon) is refused.
        const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}
        return errorResponse(
          new PostgrestError(
            status,
            error.code,
            error.message,
            error.detail ?? null,
            error.hint ?? null,
            headers,
          ),
        )
      }
      if (isConnectionError(error)) {
        log.error(`database unavailable on ${c.req.method} ${c.req.path}:`, error)
        return errorResponse(databaseUnavailable())
      }
      log.error(`unexpected error on ${c.req.method} ${c.req.path}:`, error)
      return errorResponse(internalError())
    }
  })

  app.all(
    '*',
    refuse((path) => unknownTable(path.replace(/^\/(rest\/v1\/?)?/, ''))),
  )
  return app
}
