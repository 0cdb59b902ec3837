import type { Handler } from 'hono'
import { PRIVATE_VARY } from './middleware/no-store'

// Kong's cors plugin, as on Supabase's `rest-v1` route (supabase docker/volumes/api/kong.yml).
const ALLOWED_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT'
// PostgREST's own list (Cors.hs); Content-Range must be readable for supabase-js's `count`.
const EXPOSED_HEADERS =
  'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit'

/**
 * Privacy on every REST answer: one made with a key (a service_role read lists every address) is
 * never kept by a shared cache, nor served to a request with another key or from another origin.
 */
const PRIVATE: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  Vary: `Origin, ${PRIVATE_VARY}`,
}
const GRANTED = { 'Access-Control-Expose-Headers': EXPOSED_HEADERS, ...PRIVATE }

/**
 * The site's own origins (ADR 059): `SITE_URL`'s (the server's own address when it is unset) and
 * those in `CORS_ORIGINS`. They alone get CORS on the REST API and on the database gate's 503, and
 * a page at any other origin may not write, through the REST API or the no-script form.
 */
export class SiteCors {
  private origins: readonly string[] = []
  private byOrigin = new Map<string, Readonly<Record<string, string>>>()

  /** `allowed` is read again whenever it returns another list (the listening address comes later). */
  constructor(private readonly allowed: () => readonly string[]) {}

  /**
   * The headers of every REST answer, one object per origin, written into each answer as it is
   * built: changing a finished response makes Hono copy it, a cost every request would pay.
   */
  headersFor(origin: string | null | undefined): Readonly<Record<string, string>> {
    return (origin && this.grants().get(origin)) || PRIVATE
  }

  /**
   * Whether a page at `origin` may write: the site's own origins, or the server's own host whatever
   * the scheme (a page it served, under any name it answers to). Another site's write is refused,
   * not only left unreadable: a form or a fetch without a preflight would otherwise still land. No
   * Origin is a program, not a page (curl, supabase-js on a server), and may write.
   */
  writeAllowed(origin: string | null | undefined, host: string | undefined): boolean {
    if (origin === null || origin === undefined || this.grants().has(origin)) return true
    try {
      return host !== undefined && origin !== 'null' && new URL(origin).host === host.toLowerCase()
    } catch {
      return false
    }
  }

  /** Answers OPTIONS on every REST path, before any key check, as Supabase's gateway does. */
  preflight(): Handler {
    return (c) => {
      const origin = c.req.header('origin')
      // A refused origin gets the same 200 without the grant: the browser then sends nothing.
      if (!origin || !this.grants().has(origin)) return c.body(null, 200, { Vary: 'Origin' })
      // The requested headers echoed, no Max-Age and no credentials, as Kong's defaults.
      const requested = c.req.header('access-control-request-headers')
      return c.body(null, 200, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': ALLOWED_METHODS,
        ...(requested ? { 'Access-Control-Allow-Headers': requested } : {}),
        Vary: 'Origin',
      })
    }
  }

  private grants(): ReadonlyMap<string, Readonly<Record<string, string>>> {
    const origins = this.allowed()
    if (origins !== this.origins) {
      this.origins = origins
      const grant = (origin: string) => ({ 'Access-Control-Allow-Origin': origin, ...GRANTED })
      this.byOrigin = new Map(origins.map((origin) => [origin, grant(origin)]))
    }
    return this.byOrigin
  }
}

/** The origins the REST API grants: SITE_URL's (else the listening address's) and CORS_ORIGINS. */
export function restOrigins(siteUrl: string, corsOrigins: readonly string[]): string[] {
  return [...new Set([new URL(siteUrl).origin, ...corsOrigins])]
}
