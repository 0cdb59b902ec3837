import type { ApiRole } from '../../db/api-roles'

// Prefixes PostgREST answers with 500: errors of the server or the database, not of the request.
const SERVER_SIDE = ['09', '25', '2D', '38', '39', '3B', '40', '54', '55', '57', '58', 'F0', 'HV', 'P0', 'XX']

/**
 * PostgREST's mapping from a Postgres SQLSTATE to an HTTP status (mapSQLtoHTTP in Error.hs;
 * https://docs.postgrest.org/en/latest/references/errors.html#http-status-codes). Anything
 * unlisted is the client's fault: 400.
 */
export function statusForSqlState(code: string, role: ApiRole): number {
  if (code === '42501') return role === 'anon' ? 401 : 403
  if (code === '23503' || code === '23505') return 409
  if (code === '25006') return 405
  if (code === '42P01' || code === '42883') return 404
  if (code === '42P17' || code === '53400') return 500
  if (code === 'P0001') return 400
  // The server is shutting down, crashed, or starting up (recovering): try again.
  if (code === '57P01' || code === '57P02' || code === '57P03') return 503
  // RAISE with a custom status; only error statuses, as anything else could not carry this body.
  if (/^PT[45]\d\d$/.test(code)) return Number(code.slice(2))
  const prefix = code.slice(0, 2)
  if (prefix === '08' || prefix === '53') return 503
  if (prefix === '0L' || prefix === '0P' || prefix === '28') return 403
  if (SERVER_SIDE.includes(prefix)) return 500
  return 400
}
