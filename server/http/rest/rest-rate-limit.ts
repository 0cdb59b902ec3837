import type { Context } from 'hono'
import { type Refusal, retryAfterHeader } from '../../rate-limit/rate-limit'
import { PostgrestError } from './postgrest-error'
import { searchParamsOf } from './query-params'
import { parseColumnsParam, parseRowsBody, type Row } from './request-body'

export type InsertRows = { rows: Row[]; keys: string[] }
/** What the REST app's env must carry (RestEnv) for the rows to be kept between the limit and the insert. */
export type InsertRowsEnv = { Variables: { insertRows?: Promise<InsertRows> } }

/**
 * An insert's rows, parsed once from the body readBody has read and kept on the context: the rate
 * limit counts them (one token per row, ADR 017), the insert writes them. A body that does not
 * parse rejects, for the insert to answer in its turn; the limit charges it one token.
 */
export function insertRows(c: Context<InsertRowsEnv>): Promise<InsertRows> {
  let parsed = c.get('insertRows')
  if (!parsed) {
    const columns = searchParamsOf(c.req.url).get('columns')
    parsed = c.req.text().then((body) => {
      const listed = parseColumnsParam(columns)
      return parseRowsBody(c.req.header('content-type') ?? null, body, listed)
    })
    c.set('insertRows', parsed)
  }
  return parsed
}

export const rowsToCharge = (c: Context<InsertRowsEnv>) =>
  c.req.method === 'POST'
    ? insertRows(c).then(
        ({ rows }) => rows.length,
        () => 1,
      )
    : 1

/** The rate limit's refusal as PostgREST's 429, answered by the REST app's error ladder (with CORS). */
export function refuseAsPostgrest(refusal: Refusal): never {
  const { message, details, hint } = refusal
  throw new PostgrestError(429, 'PGRST429', message, details, hint, retryAfterHeader(refusal))
}
