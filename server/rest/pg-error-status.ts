import type { ApiRole } from '../keys'

/**
 * PostgREST's mapping from a Postgres SQLSTATE to an HTTP status.
 * https://postgrest.org/en/stable/references/errors.html#sqlstate-errors
 */
export function statusForSqlState(code: string, role: ApiRole): number {
  if (code === '42501') return role === 'anon' ? 401 : 403
  if (code === '23503' || code === '23505') return 409
  if (code === '25006') return 405
  if (code === '42P01' || code === '42883') return 404
  if (code === '42P17' || code === 'P0001') return 400
  if (code === '428C9') return 400
  if (code.startsWith('08') || code.startsWith('53') || code === '57P01' || code === '57P03') return 503
  if (code.startsWith('54')) return 413
  if (code.startsWith('22') || code.startsWith('23') || code.startsWith('42')) return 400
  return 500
}
