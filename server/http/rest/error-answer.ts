import type { ErrorHandler } from 'hono'
import type { Logger } from '../../base/log'
import type { ApiRole } from '../../db/api-roles'
import { isPgError } from '../../db/database'
import type { SiteCors } from '../site-cors'
import { PostgrestError } from './postgrest-error'
import type { RestEnv } from './request-body'

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
export function errorAnswer(log: Logger, cors: SiteCors): ErrorHandler<RestEnv> {
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
