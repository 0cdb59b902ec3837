import { type Context, type ErrorHandler, Hono, type MiddlewareHandler } from 'hono'
import type { Logger } from '../../boot/log'
import { type Database, isPgError } from '../../db/database'
import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import type { ApiKeys, ApiRole, JwtClaims } from '../keys'
import { readBody } from '../middleware/read-body'
import { type WriteCharge, writeChargeOf } from '../middleware/write-charge'
import { authenticate, type Verifier } from './authenticate'
import type { RestCors } from './cors'
import { cachedVerifier } from './key-cache'
import { statusForSqlState } from './pg-error-status'
import {
  databaseUnavailable,
  internalError,
  methodNotAllowed,
  PostgrestError,
  payloadTooLarge,
  schemaNotExposed,
  unacceptableMediaType,
  unknownColumn,
  unknownTable,
} from './postgrest-error'
import { appliedPreferences, type Preferences, parsePrefer } from './prefer'
import { checkParams, parseReadQuery, parseSelect, searchParamsOf } from './query-params'
import { parseColumnsParam, parseRowsBody } from './request-body'
import { type RowCharge, tooManyRequests } from './row-charge'
import { checkAddresses, checkRows } from './row-rules'
import type { SchemaCache } from './schema-cache'
import { insertStatement, readStatement, type TableStatement, type WriteResult } from './table-sql'

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
// The query parameters each method reads (ADR 063); `apikey` is the gateway's.
const READ_PARAMS = new Set(['select', 'order', 'limit', 'offset', 'apikey'])
const INSERT_PARAMS = new Set(['columns', 'select', 'apikey'])

/** What every table route checks first, in PostgREST's order: key, profile, table, Accept, query. */
interface TableRequest {
  claims: JwtClaims
  table: string
  known: ReadonlySet<string>
  params: URLSearchParams
  preferences: Preferences
  /** The request's rate-limit charge, for its write to make (a limiter in the database). */
  charge: WriteCharge | undefined
  /** CORS and privacy headers for this request's origin, and Content-Profile when it named one. */
  headers: Record<string, string>
}

async function open(c: Context<RestEnv>, deps: RestDeps, verify: Verifier): Promise<TableRequest> {
  const request = c.req.raw
  const claims = await authenticate(verify, request)
  // For the error ladder: a database refusal (42501) is judged by the role it ran as.
  c.set('role', claims.role)
  const write = request.method === 'POST'
  // Content-Profile for writes, Accept-Profile for reads; only `public` is exposed.
  const profile = request.headers.get(write ? 'content-profile' : 'accept-profile')
  if (profile !== null && profile !== 'public') throw schemaNotExposed()
  const table = c.req.param('table') ?? ''
  const known = deps.schema.get(table)
  if (!known) throw unknownTable(table)
  checkAccept(request.headers.get('accept'))
  const params = searchParamsOf(request.url)
  checkParams(params, write ? INSERT_PARAMS : READ_PARAMS)
  const origin = request.headers.get('origin')
  if (write) deps.cors.checkWrite(origin, request.headers.get('host') ?? undefined)
  const charge = writeChargeOf(c)
  const preferences = parsePrefer(request.headers.get('prefer'))
  const headers: Record<string, string> = { ...deps.cors.headersFor(origin) }
  const applied = appliedPreferences(preferences, write)
  if (applied) headers['Preference-Applied'] = applied
  if (profile !== null) headers['Content-Profile'] = 'public'
  return { claims, table, known, params, preferences, charge, headers }
}

// JSON arrays are all this API answers: CSV, plans or `.single()`'s one object get PostgREST's 406.
function checkAccept(accept: string | null): void {
  if (!accept) return
  const types = accept.split(',').map((item) => item.split(';')[0]?.trim().toLowerCase() ?? '')
  const json = ['*/*', 'application/*', 'application/json', '']
  if (!types.some((type) => json.includes(type))) throw unacceptableMediaType(accept.slice(0, 128))
}

function answer(body: string | undefined, status: number, request: TableRequest, range: string): Response {
  const headers = { ...request.headers, 'Content-Range': range }
  return new Response(body ?? null, {
    status,
    headers: body === undefined ? headers : { ...headers, 'Content-Type': JSON_TYPE },
  })
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

/** The database limiter's refusal (PT429, the seconds as its detail) as the limiter's own 429. */
function rateLimited(error: unknown): never {
  if (isPgError(error) && error.code === 'PT429') throw tooManyRequests(Number(error.detail) || 1)
  throw error
}

/** An insert, as the key's role, in one round trip (the rate limit's charge rides along). */
async function write(
  db: Database,
  request: TableRequest,
  statement: TableStatement<WriteResult>,
): Promise<WriteResult> {
  const kept = request.charge?.inWrite()
  const written = db.runAsRole(request.claims, statement, kept)
  return statement.read(await (kept ? written.catch(rateLimited) : written))
}

/** The rows of a POST, checked as the database would before anything is written. */
async function insertedRows(c: Context<RestEnv>, deps: RestDeps, request: TableRequest) {
  const { table, known, params, claims } = request
  const columns = parseColumnsParam(params.get('columns'))
  const { rows, keys } = parseRowsBody(c.req.header('content-type') ?? null, await c.req.text(), columns)
  // One token per row for the public keys; a single object (the page's insert) costs nothing more.
  if (rows.length > 1 && claims.role !== 'service_role') await deps.chargeRows?.(c, rows.length)
  checkColumns(keys, table, known)
  if (rows.length > 1) checkRows(table, keys, rows)
  // The owner's key is the owner's word (ADR 060); the lists alone need no await.
  const checking =
    claims.role === 'service_role' ? undefined : checkAddresses(deps.addressPolicy, table, keys, rows)
  if (checking) await checking
  return { rows, keys: inTableOrder(keys, known) }
}

// node-postgres' errors when the server is gone: PostgREST says PGRST000 and 503 then. ENOENT is
// a Unix socket whose file is gone (the embedded cluster restarting).
function isConnectionError(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENOENT)$/.test(code)
  )
    return true
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)
  )
}

function errorAnswerFor(error: PostgrestError, rest: Readonly<Record<string, string>>): Response {
  const headers = { 'Content-Type': JSON_TYPE, ...rest, ...error.headers }
  return new Response(JSON.stringify(error), { status: error.status, headers })
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

/**
 * The Supabase-compatible REST endpoint, `/rest/v1/<table>`: the insert supabase-js sends and the
 * owner's read, in PostgREST's words; every other method a 405 (ADR 063).
 */
export function createRestApp(deps: RestDeps): Hono<RestEnv> {
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES
  const verify = cachedVerifier(deps.keys.secret)
  const app = new Hono<RestEnv>()
  app.options('*', deps.cors.preflight())
  // The body is in, and its size checked, before the request takes a database slot (ADR 024).
  const tooLarge = (c: Context) =>
    errorAnswerFor(payloadTooLarge(maxBodyBytes), deps.cors.headersFor(c.req.header('origin')))
  app.use(readBody(maxBodyBytes, tooLarge))
  app.use(deps.gate)
  app.onError(errorAnswer(deps.log, deps.cors))

  app.post('/:table', async (c) => {
    const request = await open(c, deps, verify)
    const { table, known, preferences, claims } = request
    const returning =
      preferences.return === 'representation'
        ? parseSelect(request.params.get('select'), table, known)
        : undefined
    const { rows, keys } = await insertedRows(c, deps, request)
    const result = await write(deps.db, request, insertStatement(table, keys, rows, returning)).catch(
      async (error: unknown) => {
        if (isPgError(error) && error.code === '23505') await deps.onDuplicate?.(table, rows)
        throw error
      },
    )
    deps.onInserted?.(c, table, result.affected, claims.role)
    // PostgREST: `*/*`, or `*/<rows inserted>` when a count was asked for.
    return answer(result.body, 201, request, preferences.count ? `*/${result.affected}` : '*/*')
  })
  // GET, and HEAD, which Hono routes here and answers without the body.
  app.get('/:table', async (c) => {
    const request = await open(c, deps, verify)
    const query = parseReadQuery(request.params, request.table, request.known)
    const statement = readStatement(request.table, query, request.preferences.count !== undefined)
    const { body, returned, count } = statement.read(await deps.db.runAsRole(request.claims, statement))
    const offset = query.offset ?? 0
    const range = `${returned === 0 ? '*' : `${offset}-${offset + returned - 1}`}/${count ?? '*'}`
    return answer(c.req.method === 'HEAD' ? undefined : body, 200, request, range)
  })
  // The gateway checks the key before anything else, so even a refusal needs one.
  app.all('/:table', async (c) => {
    await authenticate(verify, c.req.raw)
    throw methodNotAllowed(c.req.method)
  })
  app.all('*', async (c) => {
    await authenticate(verify, c.req.raw)
    throw unknownTable(c.req.path.replace(/^\/(rest\/v1\/?)?/, ''))
  })
  return app
}
