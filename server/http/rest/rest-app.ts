import { type Context, Hono, type MiddlewareHandler } from 'hono'
import type { ApiKeys } from '../../auth/api-keys'
import { cachedVerifier } from '../../auth/key-cache'
import type { Logger } from '../../base/log'
import type { ApiRole, JwtClaims } from '../../db/api-roles'
import { type Database, isPgError } from '../../db/database'
import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import { readBody } from '../middleware/read-body'
import type { SiteCors } from '../site-cors'
import { authenticate, type Verifier } from './authenticate'
import { errorAnswer, errorResponse, JSON_TYPE } from './error-answer'
import * as refuse from './postgrest-error'
import { appliedPreferences, type Preferences, parsePrefer } from './prefer'
import { checkParams, parseReadQuery, parseSelect, searchParamsOf } from './query-params'
import { insertRows, type RestEnv } from './request-body'
import { checkedRows } from './row-rules'
import type { SchemaCache } from './schema-cache'
import { insertStatement, readStatement, type TableStatement } from './table-sql'

export interface RestDeps {
  db: Database
  keys: ApiKeys
  schema: SchemaCache
  log: Logger
  /** The per-address write limit (server/rate-limit), run once the body is in (not for service_role). */
  rateLimit?: MiddlewareHandler<RestEnv>
  /** Told of every insert that committed: the table, the rows it added and the key's role. */
  onInserted?: (c: Context, table: string, rows: number, role: ApiRole) => void
  /** Told of an insert refused as a duplicate (23505), with the rows it tried, before the 409. */
  onDuplicate?: (table: string, rows: readonly Record<string, unknown>[]) => Promise<void>
  /** The app's cap on requests in flight towards the database, taken once the body is in. */
  gate: MiddlewareHandler
  cors: SiteCors
  /** Addresses refused before anything is stored, on inserts with a public key (ADR 060). */
  addressPolicy?: AddressPolicy
}

export const MAX_BODY_BYTES = 16 * 1024

// The query parameters each method reads (ADR 063); `apikey` is the gateway's.
const READ_PARAMS = new Set(['select', 'order', 'limit', 'offset', 'apikey'])
const INSERT_PARAMS = new Set(['columns', 'select', 'apikey'])
// One type of an Accept list that a JSON array satisfies (an empty one too), parameters aside.
const JSON_ACCEPTED = /^\s*(\*\/\*|application\/\*|application\/json)?\s*(;|$)/i

interface TableRequest {
  claims: JwtClaims
  table: string
  known: ReadonlySet<string>
  params: URLSearchParams
  preferences: Preferences
  /** CORS and privacy headers, Preference-Applied, and Content-Profile when the request named one. */
  headers: Record<string, string>
}

/** What both table routes check first, in PostgREST's order: key, profile, table, Accept, query. */
async function open(c: Context<RestEnv>, deps: RestDeps, verify: Verifier): Promise<TableRequest> {
  const request = c.req.raw
  const claims = await authenticate(verify, request)
  c.set('role', claims.role) // a database refusal (42501) is judged by the role it ran as
  const write = request.method === 'POST'
  const profile = request.headers.get(write ? 'content-profile' : 'accept-profile')
  if (profile !== null && profile !== 'public') throw refuse.schemaNotExposed()
  const table = c.req.param('table') ?? ''
  const known = deps.schema.get(table)
  if (!known) throw refuse.unknownTable(table)
  // JSON arrays are all this API answers: CSV, plans or `.single()`'s one object get PostgREST's 406.
  const accept = request.headers.get('accept')
  if (accept !== null && !accept.split(',').some((type) => JSON_ACCEPTED.test(type)))
    throw refuse.unacceptableMediaType(accept.slice(0, 128))
  const params = searchParamsOf(request.url)
  checkParams(params, write ? INSERT_PARAMS : READ_PARAMS)
  const origin = request.headers.get('origin')
  const preferences = parsePrefer(request.headers.get('prefer'))
  const headers: Record<string, string> = { ...deps.cors.headersFor(origin) }
  const applied = appliedPreferences(preferences, write)
  if (applied) headers['Preference-Applied'] = applied
  if (profile !== null) headers['Content-Profile'] = 'public'
  return { claims, table, known, params, preferences, headers }
}

function answer(body: string | undefined, status: number, { headers }: TableRequest, range: string) {
  if (body !== undefined) headers['Content-Type'] = JSON_TYPE
  headers['Content-Range'] = range
  return new Response(body ?? null, { status, headers })
}

/** A statement, as the key's role, in one round trip. */
async function run<Result>(db: Database, { claims }: TableRequest, statement: TableStatement<Result>) {
  return statement.read(await db.runAsRole(claims, statement))
}

/**
 * The Supabase-compatible REST endpoint, `/rest/v1/<table>`: the insert supabase-js sends and the
 * owner's read, in PostgREST's words; any other method is a 405 (ADR 063).
 */
export function createRestApp(deps: RestDeps): Hono<RestEnv> {
  const verify = cachedVerifier(deps.keys.secret)
  const app = new Hono<RestEnv>()
  app.options('*', deps.cors.preflight())
  // The body is in, and its size checked, before the request takes a database slot (ADR 024).
  const tooLarge = refuse.payloadTooLarge(MAX_BODY_BYTES)
  app.use(
    readBody(MAX_BODY_BYTES, (c) => errorResponse(tooLarge, deps.cors.headersFor(c.req.header('origin')))),
  )
  // A write from another site's page is refused, not only left unreadable, and before the gate
  // and the write limit: it costs neither a database slot nor its visitor's own writes (site-cors.ts).
  const foreign = (origin: string) =>
    errorResponse(refuse.foreignOrigin(origin.slice(0, 200)), deps.cors.headersFor(origin))
  app.use(deps.cors.writesFromOwnPages(deps.gate, foreign))
  if (deps.rateLimit) app.use(deps.rateLimit)
  app.onError(errorAnswer(deps.log, deps.cors))

  app.post('/:table', async (c) => {
    const request = await open(c, deps, verify)
    const { table, known, preferences, claims } = request
    const select = parseSelect(request.params.get('select'), table, known)
    // The owner's key is the owner's word (ADR 060): no address policy for service_role.
    const policy = claims.role === 'service_role' ? undefined : deps.addressPolicy
    const { rows, keys } = await checkedRows(await insertRows(c), table, known, policy)
    const returning = preferences.return === 'representation' ? select : undefined
    const statement = insertStatement(table, keys, rows, returning)
    const result = await run(deps.db, request, statement).catch(async (error: unknown) => {
      if (isPgError(error) && error.code === '23505') await deps.onDuplicate?.(table, rows)
      throw error
    })
    deps.onInserted?.(c, table, result.affected, claims.role)
    return answer(result.body, 201, request, preferences.count ? `*/${result.affected}` : '*/*')
  })
  // GET, and HEAD, which Hono routes here and answers without the body.
  app.get('/:table', async (c) => {
    const request = await open(c, deps, verify)
    const query = parseReadQuery(request.params, request.table, request.known)
    const statement = readStatement(request.table, query, request.preferences.count !== undefined)
    const { body, returned, count } = await run(deps.db, request, statement)
    const first = query.offset ?? 0
    const range = `${returned === 0 ? '*' : `${first}-${first + returned - 1}`}/${count ?? '*'}`
    return answer(body, 200, request, range)
  })
  // The gateway checks the key before anything else, so even a refusal needs one.
  app.all('/:table', async (c) => {
    await authenticate(verify, c.req.raw)
    throw refuse.methodNotAllowed(c.req.method)
  })
  app.all('*', async (c) => {
    await authenticate(verify, c.req.raw)
    throw refuse.unknownTable(c.req.path.replace(/^\/(rest\/v1\/?)?/, ''))
  })
  return app
}
