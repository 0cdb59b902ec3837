import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { AGENT_DOOR_HEADER, WEBMCP_DOOR } from '../../../contract/agent-door'
import { isSigned, type SignedAgents, withProof } from '../../agents/verify-agent'
import type { SourceKey } from '../../analytics/source-of'
import type { ApiKeys } from '../../auth/api-keys'
import { cachedVerifier } from '../../auth/key-cache'
import { InvalidKeyError } from '../../auth/verify-key'
import type { Logger } from '../../base/log'
import type { Database } from '../../db/database'
import type { JwtClaims } from '../../db/jwt-claims'
import { type SignupConsent, type SignupDeps, signUp } from '../../waitlist/signup'
import { readBody } from '../middleware/request-guards'
import type { SiteCors } from '../site-cors'
import * as refuse from './postgrest-error'
import {
  errorAnswer,
  errorResponse,
  invalidApiKey,
  invalidJwt,
  JSON_TYPE,
  jwtRefusal,
  missingApiKey,
} from './postgrest-error'
import {
  appliedPreferences,
  checkParams,
  insertRows,
  knownColumns,
  type Preferences,
  parsePrefer,
  parseReadQuery,
  parseSelect,
  type RestEnv,
  searchParamsOf,
} from './rest-request'
import { rpcHandlers } from './rpc-routes'
import type { SchemaCache } from './table-sql'
import { readStatement, type TableStatement } from './table-sql'

export interface RestDeps {
  db: Database
  keys: ApiKeys
  schema: SchemaCache
  log: Logger
  /** The per-address write limit (server/rate-limit), run once the body is in (not for service_role). */
  rateLimit?: MiddlewareHandler<RestEnv>
  /** The signup path the waitlist's inserts are handed to (server/waitlist/signup.ts). */
  signup: SignupDeps
  /** Names a signup's source before its insert (analytics); absent, none is counted or kept. */
  sourceOf?: (c: Context) => SourceKey
  /** The client's network, kept with the entry (client-network.ts); absent, none is kept. */
  networkOf?: (c: Context) => string | undefined
  /** The app's cap on requests in flight towards the database, taken once the body is in. */
  gate: MiddlewareHandler
  cors: SiteCors
  /** Web Bot Auth, for a signed insert (server/agents); absent, none is checked. */
  agents?: SignedAgents
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

const PAGE: SignupConsent = { door: 'page' }
const API: SignupConsent = { door: 'api' }
const WEBMCP: SignupConsent = { door: 'webmcp', agent: { name: WEBMCP_DOOR } }

/**
 * The door of a REST insert, as its request tells it (never verified, docs/privacy.md): a page's,
 * when a browser sent it from one of the site's own origins (Origin: a write from any other was
 * refused before this), the page's WebMCP tool's when it says so; else a program's (`api`). The
 * owner's key is always `api` (signup.ts).
 */
function consentOf(headers: Headers): SignupConsent {
  if (headers.get('origin') === null) return API
  return headers.get(AGENT_DOOR_HEADER) === WEBMCP_DOOR ? WEBMCP : PAGE
}

/** A statement, as the key's role, in one round trip. */
async function run<Result>(db: Database, { claims }: TableRequest, statement: TableStatement<Result>) {
  return statement.read(await db.runAsRole(claims, statement))
}

/**
 * The Supabase-compatible REST endpoint, `/rest/v1/<table>`: the insert supabase-js sends and the
 * owner's read, in PostgREST's words; any other method is a 405 (ADR 063). Beside them,
 * `/rest/v1/rpc/redeem_invite`, the beta product's one call (rpc-routes.ts).
 */
export function createRestApp(deps: RestDeps): Hono<RestEnv> {
  const verify = cachedVerifier(deps.keys.secret)
  const app = new Hono<RestEnv>()
  // A browser's preflight, before any step: it carries no body, key or row.
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

  const table = tableHandlers(deps, verify)
  const { db, cors } = deps
  const rpc = rpcHandlers({
    db,
    cors,
    secret: deps.keys.secret,
    authenticate: (request) => authenticate(verify, request),
  })

  // The REST room's table: the insert and the owner's read, in PostgREST's words, beside the beta
  // product's one call (rpc-routes.ts); any other method is a 405, any other path a 404. The
  // gateway checks the key before anything else, so even a refusal needs one.
  app.post('/:table', table.insert)
  app.get('/:table', table.read) // and HEAD, which Hono routes here and answers without the body
  app.post('/rpc/:name', rpc.call)
  app.get('/rpc/:name', rpc.read)
  app.all('/rpc/:name', rpc.other)
  app.all('/:table', table.other)
  app.all('*', table.unknown)
  return app
}

/** The table routes' handlers: the waitlist's insert through the signup, the owner's read, the refusals. */
function tableHandlers(deps: RestDeps, verify: Verifier) {
  return {
    // The REST room answers the documented contract; the waitlist's own rules are the signup's.
    insert: async (c: Context<RestEnv>) => {
      const request = await open(c, deps, verify)
      const { table, known, preferences, claims } = request
      if (table !== 'waitlist') throw refuse.methodNotAllowed('POST')
      const select = parseSelect(request.params.get('select'), table, known)
      const { rows, keys } = knownColumns(await insertRows(c), table, known)
      const returning = preferences.return === 'representation' ? select : undefined
      const declared = consentOf(c.req.raw.headers)
      // One header look-up for an unsigned insert; a signed one is checked before its insert.
      const consent =
        deps.agents && isSigned(c.req.raw.headers)
          ? await withProof(declared, c.req.raw, deps.agents)
          : declared
      const origin = { source: deps.sourceOf?.(c), network: deps.networkOf?.(c), consent }
      const result = await signUp(deps.signup, { rows, columns: keys, claims, returning, ...origin })
      return answer(result.body, 201, request, preferences.count ? `*/${result.affected}` : '*/*')
    },
    read: async (c: Context<RestEnv>) => {
      const request = await open(c, deps, verify)
      const query = parseReadQuery(request.params, request.table, request.known)
      const statement = readStatement(request.table, query, request.preferences.count !== undefined)
      const { body, returned, count } = await run(deps.db, request, statement)
      const first = query.offset ?? 0
      const range = `${returned === 0 ? '*' : `${first}-${first + returned - 1}`}/${count ?? '*'}`
      return answer(body, 200, request, range)
    },
    other: async (c: Context<RestEnv>) => {
      await authenticate(verify, c.req.raw)
      throw refuse.methodNotAllowed(c.req.method)
    },
    unknown: async (c: Context<RestEnv>) => {
      await authenticate(verify, c.req.raw)
      throw refuse.unknownTable(c.req.path.replace(/^\/(rest\/v1\/?)?/, ''))
    },
  }
}

/** Checks a token and returns its claims (server/auth/verify-key.ts, possibly cached). */
export type Verifier = (token: string) => Promise<JwtClaims>

/** The token's claims, or the refusal PostgREST (or the gateway) words for its fault. */
async function claimsOf(verify: Verifier, token: string, refuse: (error: InvalidKeyError) => Error) {
  try {
    return await verify(token)
  } catch (error) {
    throw error instanceof InvalidKeyError ? refuse(error) : error
  }
}

/**
 * Supabase's gateway first requires an `apikey` (header or query parameter); PostgREST then takes
 * the role from the Bearer token, or from the apikey without one. Where hosted Kong knows the
 * project's two keys, any key our secret signed passes: a hosted project's secret works unchanged.
 */
export async function authenticate(verify: Verifier, request: Request): Promise<JwtClaims> {
  const apikey = request.headers.get('apikey') ?? searchParamsOf(request.url).get('apikey')
  if (!apikey) throw missingApiKey()
  const claims = await claimsOf(verify, apikey, invalidApiKey)
  const authorization = request.headers.get('authorization')
  if (authorization === null) return claims
  // PostgREST reads only "Bearer <token>"; any other scheme leaves an empty token, which it refuses.
  const [scheme = '', token = ''] = authorization.trim().split(/\s+/)
  if (!/^bearer$/i.test(scheme) || token === '')
    throw invalidJwt('PGRST301', 'Empty JWT is sent in Authorization header')
  // supabase-js sends the key itself as the bearer when there is no session.
  if (token === apikey) return claims
  return claimsOf(verify, token, (error) => jwtRefusal(error, token))
}
