import type { MiddlewareHandler } from 'hono'

const ALLOWED_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT'
const EXPOSED_HEADERS =
  'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit'

/**
 * CORS as Supabase's gateway answers it: any origin may call with a key (the key, not the
 * origin, is the credential), preflights get 200 and echo the requested headers.
 */
export function supabaseCors(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      return c.body(null, 200, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': ALLOWED_METHODS,
        'Access-Control-Allow-Headers':
          c.req.header('access-control-request-headers') ??
          'apikey, authorization, content-type, content-profile, accept-profile, prefer, range, x-client-info',
        'Access-Control-Max-Age': '3600',
      })
    }
    await next()
    c.header('Access-Control-Allow-Origin', '*')
    c.header('Access-Control-Expose-Headers', EXPOSED_HEADERS)
  }
}
