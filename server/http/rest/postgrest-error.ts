import type { ErrorHandler } from 'hono'
import type { InvalidKeyError, KeyFault } from '../../auth/verify-key'
import type { Logger } from '../../base/log'
import { isPgError } from '../../db/database'
import type { ApiRole } from '../../db/jwt-claims'
import { type Refusal, retryAfterHeader } from '../../rate-limit/rate-limit'
import type { SiteCors } from '../site-cors'

/**
 * An answer in PostgREST's error shape: `{ code, details, hint, message }` (keys in aeson's
 * alphabetical order, null where empty) with its status code, worded as PostgREST 13's Error.hs.
 */
export class PostgrestError extends Error {
  override name = 'PostgrestError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  toJSON(): Record<string, string | null> {
    return { code: this.code, details: this.details, hint: this.hint, message: this.message }
  }
}

// Refusals that on hosted Supabase come from the gateway (Kong): its message and hint word for word
// (supabase-js shows the message), with PostgREST's own code for the same trouble.
const NO_KEY_HINT = 'No `apikey` request header or url param was found.'
const BAD_KEY_HINT = 'Double check your Supabase `anon` or `service_role` API key.'
export const missingApiKey = () =>
  new PostgrestError(401, 'PGRST302', 'No API key found in request', null, NO_KEY_HINT)
export const invalidApiKey = () => new PostgrestError(401, 'PGRST301', 'Invalid API key', null, BAD_KEY_HINT)

// PostgREST has no body limit of its own: the gateway's wording, and our code for a limit in front
// of the API (PGRST + the status, as PGRST414 and PGRST431).
export const payloadTooLarge = (limit: number) =>
  new PostgrestError(
    413,
    'PGRST413',
    'Request size limit exceeded',
    `The request body may be at most ${limit} bytes.`,
    'Send a smaller body.',
  )

/** The rate limit's refusal as PostgREST's 429, answered by the REST app's error ladder (with CORS). */
export function refuseAsPostgrest(refusal: Refusal): never {
  const { message, details, hint } = refusal
  throw new PostgrestError(429, 'PGRST429', message, details, hint, retryAfterHeader(refusal))
}

// PostgREST 12+ answers a body it cannot read with PGRST102 and 400 (415 was retired in 12.0.3).
export const invalidJson = (details: string | null = null) =>
  new PostgrestError(400, 'PGRST102', 'Empty or invalid json', details)
export const keysMustMatch = () => new PostgrestError(400, 'PGRST102', 'All object keys must match')
export const unsupportedMediaType = (type: string) =>
  new PostgrestError(400, 'PGRST102', `Content-Type not acceptable: ${type}`)

export const unacceptableMediaType = (accept: string) =>
  new PostgrestError(406, 'PGRST107', `None of these media types are available: ${accept}`)

export const unknownColumn = (name: string, table: string) =>
  new PostgrestError(400, 'PGRST204', `Could not find the '${name}' column of '${table}' in the schema cache`)
export const unknownTable = (table: string) =>
  new PostgrestError(404, 'PGRST205', `Could not find the table 'public.${table}' in the schema cache`)

/**
 * PostgREST 13's answer to a call no function takes: another name, or argument names that are not
 * the function's (keys sorted, as its set of payload keys gives them). A POST of JSON could also
 * have meant one unnamed json parameter, which the details then name too.
 */
export function unknownFunction(name: string, args: readonly string[], post: boolean, hint: string | null) {
  const fn = `public.${name}`
  const list = args.join(', ')
  const called = args.length === 0 ? ' without parameters' : `(${list})`
  const searched =
    args.length === 0 ? ' without parameters' : ` with parameter${args.length > 1 ? 's' : ''} ${list}`
  const unnamed = post ? ' or with a single unnamed json/jsonb parameter' : ''
  return new PostgrestError(
    404,
    'PGRST202',
    `Could not find the function ${fn}${called} in the schema cache`,
    `Searched for the function ${fn}${searched}${unnamed}, but no matches were found in the schema cache.`,
    hint,
  )
}

/** What Postgres says when the key's role may not execute a function: 401 for anon, as PostgREST maps it. */
export const functionDenied = (name: string, role: ApiRole) => {
  const status = statusForSqlState('42501', role)
  const challenge: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}
  return new PostgrestError(status, '42501', `permission denied for function ${name}`, null, null, challenge)
}

/**
 * PostgREST runs a GET or HEAD of a function in a read-only transaction, where a function that
 * writes fails with 25006 (405): Postgres's words, and the way out in the hint.
 */
export const readOnlyCall = (hint: string) =>
  new PostgrestError(405, '25006', 'cannot execute UPDATE in a read-only transaction', null, hint)

// PostgREST 12 and 13.0 wording; hosted projects also expose graphql_public, which we do not serve.
export const schemaNotExposed = () =>
  new PostgrestError(406, 'PGRST106', 'The schema must be one of the following: public')

// What this API serves of PostgREST (ADR 063): anything else is refused, never silently ignored.
export const methodNotAllowed = (method: string) =>
  new PostgrestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`)
export const unparsableQuery = (message: string, details: string | null = null) =>
  new PostgrestError(400, 'PGRST100', message, details)
export const unsupportedParameter = (
  name: string,
  details = 'Reads take select, order, limit and offset; inserts take columns and select.',
) => unparsableQuery(`Unsupported query parameter: ${name}`, details)
export const missingColumn = (column: string, table: string) =>
  new PostgrestError(400, '42703', `column ${table}.${column} does not exist`)

/** PostgREST 13's JWT errors: PGRST301 for a token it cannot decode, PGRST303 for bad claims. */
export const invalidJwt = (code: 'PGRST301' | 'PGRST303', message: string, details: string | null = null) =>
  new PostgrestError(401, code, message, details, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
  })

// PostgREST 13's wording for each way a token can fail (src/PostgREST/Auth/Jwt.hs).
const JWT_FAULTS: Record<Exclude<KeyFault, 'parts'>, Parameters<typeof invalidJwt>> = {
  expired: ['PGRST303', 'JWT expired'],
  early: ['PGRST303', 'JWT not yet valid'],
  claims: ['PGRST303', 'Parsing claims failed'],
  algorithm: ['PGRST301', 'Wrong or unsupported encoding algorithm', 'Only HS256 is accepted'],
  role: [
    'PGRST303',
    'JWT role is not one this API serves',
    'The role claim must be anon, authenticated or service_role',
  ],
  signature: ['PGRST301', 'No suitable key or wrong key type', 'None of the keys was able to decode the JWT'],
}

export const jwtRefusal = ({ fault }: InvalidKeyError, token: string) =>
  fault === 'parts'
    ? invalidJwt('PGRST301', `Expected 3 parts in JWT; got ${token.split('.').length}`)
    : invalidJwt(...JWT_FAULTS[fault])

// A write from another site's page (cors.ts): our code for a refusal in front of the API, as
// PGRST413 and PGRST429 are, with what the operator would change if the page is the lab's own.
export const foreignOrigin = (origin: string) =>
  new PostgrestError(
    403,
    'PGRST403',
    'Writes from this origin are not allowed',
    `The request came from a page at ${origin}, which is not one of this site's origins.`,
    "If that page is the site's own, add its origin to CORS_ORIGINS on the server.",
  )

export const JSON_TYPE = 'application/json; charset=utf-8'

// PostgREST's SQLSTATE to HTTP status (mapSQLtoHTTP in Error.hs; docs.postgrest.org, errors): a
// whole code first, then its class; anything unlisted is the client's fault, 400. 57P01-03: the
// server is shutting down, crashed, or starting up (recovering), so try again.
const STATUS_OF = new Map(
  Object.entries({
    409: '23503 23505',
    405: '25006',
    404: '42P01 42883',
    500: '42P17 53400 09 25 2D 38 39 3B 40 54 55 57 58 F0 HV P0 XX',
    400: 'P0001',
    503: '57P01 57P02 57P03 08 53',
    403: '0L 0P 28',
  }).flatMap(([status, codes]) => codes.split(' ').map((code) => [code, Number(status)] as const)),
)

export function statusForSqlState(code: string, role: ApiRole): number {
  if (code === '42501') return role === 'anon' ? 401 : 403
  // RAISE with a custom status; only error statuses, as anything else could not carry this body.
  if (/^PT[45]\d\d$/.test(code)) return Number(code.slice(2))
  return STATUS_OF.get(code) ?? STATUS_OF.get(code.slice(0, 2)) ?? 400
}

// node-postgres' errors when the server is gone: PostgREST says PGRST000 and 503 then. ENOENT is
// a Unix socket whose file is gone (the embedded cluster restarting).
const CONNECTION_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENOENT)$/
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error/i

function isConnectionError(error: Error): boolean {
  const { code } = error as { code?: unknown }
  return CONNECTION_CODES.test(String(code)) || CONNECTION_MESSAGES.test(error.message)
}

export function errorResponse(error: PostgrestError, headers: Readonly<Record<string, string>>): Response {
  return new Response(JSON.stringify(error), {
    status: error.status,
    headers: { 'Content-Type': JSON_TYPE, ...headers, ...error.headers },
  })
}

/**
 * The app's one error ladder: PostgREST's own errors as they are, a database error by its
 * SQLSTATE, a lost database as PGRST000 (503), anything else as a logged 500.
 */
export function errorAnswer<Env extends { Variables: { role?: ApiRole } }>(
  log: Logger,
  cors: SiteCors,
): ErrorHandler<Env> {
  return (error, c) => {
    const answer = (refusal: PostgrestError) =>
      errorResponse(refusal, cors.headersFor(c.req.header('origin')))
    const where = `${c.req.method} ${c.req.path}`
    if (error instanceof PostgrestError) return answer(error)
    if (isPgError(error)) {
      const status = statusForSqlState(error.code, c.get('role') ?? 'anon')
      if (status >= 500) log.error(`database error ${error.code} on ${where}:`, error)
      // PostgREST adds the challenge when a role without a login (anon) is refused.
      const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}
      const { code, message, detail, hint } = error
      return answer(new PostgrestError(status, code, message, detail ?? null, hint ?? null, headers))
    }
    if (isConnectionError(error)) {
      log.error(`database unavailable on ${where}:`, error)
      return answer(
        new PostgrestError(503, 'PGRST000', 'Database connection error. Retrying the connection.'),
      )
    }
    log.error(`unexpected error on ${where}:`, error)
    // PostgREST has no code for its own bugs; XX000 is Postgres's "internal_error". Details stay in
    // the server log, never in the answer.
    return answer(
      new PostgrestError(500, 'XX000', 'Internal server error', null, 'The error was logged on the server.'),
    )
  }
}
