import type { Handler } from 'hono'
import { PRIVATE_VARY } from '../middleware/no-store'

// Kong's cors plugin with no options, as on Supabase's `rest-v1` route (supabase docker/volumes/api/kong.yml).
const ALLOWED_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT'
// PostgREST's own list (Cors.hs); Content-Range must be readable for supabase-js's `count`.
const EXPOSED_HEADERS =
  'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit'

/**
 * What every answer of the REST API carries: any origin may call with a key (the key, not the
 * origin, is the credential). Written into each answer as it is built, not added afterwards:
 * changing a finished response makes Hono copy it, a cost every request would pay.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
}

/**
 * What every answer of the REST API carries: CORS as above, and privacy. An answer made with a key
 * (a service_role read lists every address) must never be kept by a shared cache, nor served to a
 * request with another key: `no-store`, and `Vary` on both places a key travels. With `?apikey=`
 * the key is in the URL, which a cache keys on anyway.
 */
export const REST_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  'Cache-Control': 'no-store',
  Vary: PRIVATE_VARY,
}

/**
 * CORS preflights as Supabase's gateway answers them: before any key check, with 200, an empty
 * body and the requested headers echoed; no Max-Age and no credentials, as Kong's defaults.
 * A handler for OPTIONS on every path, registered first, rather than a middleware every request
 * would pass through.
 */
export function supabasePreflight(): Handler {
  return (c) => {
    const headers: Record<string, string> = {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
    }
    const requested = c.req.header('access-control-request-headers')
    if (requested) headers['Access-Control-Allow-Headers'] = requested
    return c.body(null, 200, headers)
  }
}
