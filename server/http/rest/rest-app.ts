import { type Context, type ErrorHandler, Hono, type MiddlewareHandler } from 'hono'
import type { ApiKeys } from '../../auth/api-keys'
import type { Logger } from '../../boot/log'
import type { ApiRole, JwtClaims } from '../../db/api-roles'
import { type Database, isPgError } from '../../db/database'
import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import { readBody } from '../middleware/read-body'
import { type WriteCharge, writeChargeOf } from '../middleware/write-charge'
import { checkAddresses } from './address-rule'
import { authenticate, type Verifier } from './authenticate'
import { conflictTarget } from './conflict-target'
import type { RestCors } from './cors'
import { cachedVerifier } from './key-cache'
import { statusForSqlState } from './pg-error-status'
import {
  databaseUnavailable,
  internalError,
  methodNotAllowed,
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
import { parseReadQuery, type ReadQuery, searchParamsOf } from './query-params'
import { parseColumnsParam, parseRowsBody } from './request-body'
import { type RowCharge, tooManyRequests } from './row-charge'
import { checkRows } from './row-rules'
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
  /** Told of every insert that committed: the table, the rows it added and the key's role. */
  onInserted?: (c: Context, table: string, rows: number, role: ApiRole) => void
  /** Told of an insert refused as a duplicate (23505), with the rows it tried, before the 409. */
  onDuplicate?: (table: string, rows: readonly Record<string, unknown>[]) => Promise<void>
  /** The app's cap on requests in flight towards the database, taken once the body is in. */
  gate: MiddlewareHandler
  /** CORS and the write check for the site's own origins (cors.ts). */
  cors: RestCors
  /** Addresses refused before anything is stored, on inserts with a public key (ADR 060). */
  addressPolicy?: AddressPolicy
}

export const MAX_BODY_BYTES = 16 * 1024

/** The role the request's key carries, set once it is authenticated. */
export type RestEnv = { Variables: { role?: ApiRole } }

const JSON_TYPE = 'application/json; charset=utf-8'
const OBJECT_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8'

function errorAnswerFor(error: PostgrestError, rest: Readonly<Record<string, string>>): Response {
  return new Response(JSON.stringify(error), {
    status: error.status,
    headers: { 'Content-Type': JSON_TYPE, ...rest, ...error.headers },
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

// An insert names its columns in the table's order, each once: its text then depends on which
// columns were sent, not on how a client ordered or repeated them (`?columns=email,email`).
function inTableOrder(keys: string[], known: ReadonlySet<string>): string[] {
  if (keys.length <= 1) return keys
  return [...known].filter((column) => keys.includes(column))
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

/** The database limiter's refusal (PT429, the seconds as its detail) as the limiter's own 429. */
function rateLimited(error: unknown): never {
  if (isPgError(error) && error.code === 'PT429') throw tooManyRequests(Number(error.detail) || 1)
  throw error
}

/** What every table route checks first, in PostgREST's order: key, profile, table, Accept, Prefer, query. */
interface TableRequest {
  claims: JwtClaims
  table: string
  known: ReadonlySet<string>
  params: URLSearchParams
  shape: 'array' | 'object'
  profiled: boolean
  mutation: boolean
  preferences: Preferences
  query: ReadQuery
  /** The columns a write returns (Prefer: return=representation), else none. */
  returning: ReadQuery['columns'] | undefined
  /** The request's rate-limit charge, for its write to make (a limiter in the database). */
  charge: WriteCharge | undefined
  /** CORS and privacy headers for this request's origin. */
  headers: Readonly<Record<string, string>>
}

function answer(
  body: string | undefined,
  status: number,
  request: TableRequest,
  extra: Record<string, string> = {},
): Response {
  const headers: Record<string, string> = { ...request.headers, ...extra }
  const applied = appliedPreferences(request.preferences, request.mutation)
  if (applied) headers['Preference-Applied'] = applied
  if (request.profiled) headers['Content-Profile'] = 'public'
  if (body !== undefined) headers['Content-Type'] = request.shape === 'object' ? OBJECT_TYPE : JSON_TYPE
  return new Response(body ?? null, { status, headers })
}

function shaped(body: string | undefined, rows: number, request: TableRequest): string | undefined {
  return body !== undefined && request.shape === 'object' ? singleObject(body, rows) : body
}

// As Supabase's pg-safeupdate does: a whole-table change needs an explicit filter.
function requireFilter(request: TableRequest, verb: 'UPDATE' | 'DELETE'): void {
  if (!request.query.where) throw new PostgrestError(400, '21000', `${verb} requires a WHERE clause`)
}

/**
 * The table endpoint's handlers, one per method. Each throws a PostgrestError (or lets a database
 * error through) for the app's one onError to answer.
 */
class TableRoutes {
  constructor(
    private readonly deps: RestDeps,
    private readonly verify: Verifier,
  ) {}

  private async open(c: Context<RestEnv>): Promise<TableRequest> {
    const claims = await authenticate(this.verify, c.req.raw)
    // For the error ladder: a database refusal (42501) is judged by the role it ran as.
    c.set('role', claims.role)
    const request = c.req.raw
    const profiled = checkProfile(request)
    const table = c.req.param('table') ?? ''
    const known = this.deps.schema.get(table)
    if (!known) throw unknownTable(table, closestTable(table, this.deps.schema))
    const shape = negotiate(request.headers.get('accept'))
    const params = searchParamsOf(request.url)
    const preferences = parsePrefer(request.headers.get('prefer'))
    const query = parseReadQuery(params, table, known)
    const returning = preferences.return === 'representation' ? query.columns : undefined
    const mutation = !['GET', 'HEAD'].includes(request.method)
    const origin = request.headers.get('origin')
    if (mutation) this.deps.cors.checkWrite(origin, request.headers.get('host') ?? undefined)
    const charge = writeChargeOf(c)
    const headers = this.deps.cors.headersFor(origin)
    const parsed = { claims, table, known, params, shape, profiled, mutation, preferences, query }
    return { ...parsed, returning, charge, headers }
  }

  /**
   * A write, as the key's role, in one round trip. A write whose rows the client wants back as one
   * object (`.single()`) must not be committed when it touches other than one row (PostgREST's
   * PGRST116), so that one runs in a full transaction and is checked before the commit.
   */
  private async write(request: TableRequest, statement: TableStatement<WriteResult>): Promise<WriteResult> {
    const { db } = this.deps
    const { charge } = request
    if (request.shape === 'array' || !statement.returnsBody) {
      const kept = charge?.inWrite()
      const written = db.runAsRole(request.claims, statement, kept)
      return statement.read(await (kept ? written.catch(rateLimited) : written))
    }
    // Awaited steps, not one round trip: the charge goes first, on its own.
    const retryAfter = await charge?.takeNow()
    if (retryAfter) throw tooManyRequests(retryAfter)
    return db.asRole(request.claims, async (tx) => {
      const result = await runIn(tx, statement)
      return {
        ...result,
        body: result.body === undefined ? undefined : singleObject(result.body, result.affected),
      }
    })
  }

  async insert(c: Context<RestEnv>): Promise<Response> {
    const request = await this.open(c)
    const { table, known, params, preferences, claims } = request
    const columns = parseColumnsParam(params.get('columns'))
    const body = await c.req.text()
    const { rows, keys: names } = parseRowsBody(c.req.raw.headers.get('content-type'), body, columns)
    // One token per row for the public keys; a single object (the page's insert) costs nothing more.
    if (rows.length > 1 && claims.role !== 'service_role') await this.deps.chargeRows?.(c, rows.length)
    checkColumns(names, table, known)
    if (rows.length > 1) checkRows(table, names, rows)
    // The owner's key is the owner's word (ADR 060); the lists alone need no await.
    const { addressPolicy } = this.deps
    const checking =
      claims.role === 'service_role' ? undefined : checkAddresses(addressPolicy, table, names, rows)
    if (checking) await checking
    const target = conflictTarget(params.get('on_conflict'), table, known)
    // A merge needs a conflict target; without ?on_conflict= (PostgREST would use the primary
    // key, which a client never sends) the preference is not applied, and not echoed.
    if (preferences.resolution === 'merge-duplicates' && !target) preferences.resolution = undefined
    const upsert = preferences.resolution ? { resolution: preferences.resolution, target } : undefined
    const statement = insertStatement(table, inTableOrder(names, known), rows, request.returning, upsert)
    const result = await this.write(request, statement).catch(async (error: unknown) => {
      if (isPgError(error) && error.code === '23505') await this.deps.onDuplicate?.(table, rows)
      throw error
    })
    this.deps.onInserted?.(c, table, result.affected, claims.role)
    // PostgREST: `*/*`, or `*/<rows inserted>` when a count was asked for.
    const range = preferences.count ? `*/${result.affected}` : '*/*'
    return answer(result.body, 201, request, { 'Content-Range': range })
  }

  /** GET, and HEAD, which Hono routes here and answers without the body. */
  async read(c: Context<RestEnv>): Promise<Response> {
    const request = await this.open(c)
    const { query, preferences } = request
    const statement = readStatement(request.table, query, preferences.count !== undefined)
    const result = statement.read(await this.deps.db.runAsRole(request.claims, statement))
    const offset = query.offset ?? 0
    const total = result.count
    if (total !== undefined && offset > total) throw rangeNotSatisfiable(offset, total)
    const body = c.req.method === 'HEAD' ? undefined : shaped(result.body, result.returned, request)
    // PostgREST's rangeStatus: 206 when a known total is larger than the page served.
    const status = total !== undefined && result.returned < total ? 206 : 200
    return answer(body, status, request, {
      'Content-Range': contentRange(offset, result.returned, total),
    })
  }

  async update(c: Context<RestEnv>): Promise<Response> {
    const request = await this.open(c)
    requireFilter(request, 'UPDATE')
    const body = await c.req.text()
    const { rows, keys: names } = parseRowsBody(c.req.raw.headers.get('content-type'), body)
    checkColumns(names, request.table, request.known)
    if (rows.length !== 1 || names.length === 0) return answer(undefined, 204, request)
    return this.changed(
      request,
      updateStatement(request.table, request.query, rows[0] ?? {}, request.returning),
    )
  }

  async delete(c: Context<RestEnv>): Promise<Response> {
    const request = await this.open(c)
    requireFilter(request, 'DELETE')
    return this.changed(request, deleteStatement(request.table, request.query, request.returning))
  }

  private async changed(request: TableRequest, statement: TableStatement<WriteResult>): Promise<Response> {
    const result = await this.write(request, statement)
    const { affected } = result
    const range = contentRange(0, affected, request.preferences.count ? affected : undefined)
    return answer(result.body, result.body === undefined ? 204 : 200, request, { 'Content-Range': range })
  }

  /** Any other method: still checked as the others are, then PostgREST's 405. */
  async other(c: Context<RestEnv>): Promise<Response> {
    await this.open(c)
    throw methodNotAllowed(c.req.method)
  }

  // The gateway checks the key before anything else, so even a path we do not serve needs one.
  async refuse(c: Context, notFound: (path: string) => PostgrestError): Promise<Response> {
    await authenticate(this.verify, c.req.raw)
    throw notFound(c.req.path)
  }
}

/**
 * The app's one error ladder: PostgREST's own errors as they are, a database error by its
 * SQLSTATE, a lost database as PGRST000 (503), anything else as a logged 500.
 */
function errorAnswer(log: Logger, cors: RestCors): ErrorHandler<RestEnv> {
  return (error, c) => {
    const errorResponse = (refusal: PostgrestError) =>
      errorAnswerFor(refusal, cors.headersFor(c.req.header('origin')))
    if (error instanceof PostgrestError) return errorResponse(error)
    if (isPgError(error)) {
      const status = statusForSqlState(error.code, c.get('role') ?? 'anon')
      if (status >= 500) log.error(`database error ${error.code} on ${c.req.method} ${c.req.path}:`, error)
      // PostgREST adds the challenge when a role without a login (anon) is refused.
      const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}
      const { code, message, detail, hint } = error
      return errorResponse(new PostgrestError(status, code, message, detail ?? null, hint ?? null, headers))
    }
    if (isConnectionError(error)) {
      log.error(`database unavailable on ${c.req.method} ${c.req.path}:`, error)
      return errorResponse(databaseUnavailable())
    }
    log.error(`unexpected error on ${c.req.method} ${c.req.path}:`, error)
    return errorResponse(internalError())
  }
}

/** The Supabase-compatible REST endpoint: `/rest/v1/<table>`, PostgREST's contract for what it serves. */
export function createRestApp(deps: RestDeps): Hono<RestEnv> {
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES
  const verify = cachedVerifier(deps.keys.secret)
  const routes = new TableRoutes(deps, verify)
  const app = new Hono<RestEnv>()

  app.options('*', deps.cors.preflight())
  // The body is in, and its size checked, before the request takes a database slot (ADR 024).
  app.use(
    readBody(maxBodyBytes, (c) =>
      errorAnswerFor(payloadTooLarge(maxBodyBytes), deps.cors.headersFor(c.req.header('origin'))),
    ),
  )
  app.use(deps.gate)
  app.onError(errorAnswer(deps.log, deps.cors))

  // Functions are not part of this API; say so as PostgREST does for one it cannot find.
  const functionNotFound = (path: string) => unknownFunction(path.split('/').pop() ?? '')
  const tableNotFound = (path: string) => unknownTable(path.replace(/^\/(rest\/v1\/?)?/, ''))
  app.all('/rpc/:name', (c) => routes.refuse(c, functionNotFound))
  app.post('/:table', (c) => routes.insert(c))
  app.get('/:table', (c) => routes.read(c))
  app.patch('/:table', (c) => routes.update(c))
  app.delete('/:table', (c) => routes.delete(c))
  app.all('/:table', (c) => routes.other(c))
  app.all('*', (c) => routes.refuse(c, tableNotFound))
  return app
}
