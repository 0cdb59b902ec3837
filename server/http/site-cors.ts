import { networkInterfaces } from 'node:os'
import type { Context, Env, Handler, MiddlewareHandler } from 'hono'
import { PRIVATE_VARY } from './middleware/json-error'

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

/** Methods that write nothing: no page's origin is refused them. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The site's own origins (ADR 059): `SITE_URL`'s (the server's own address when it is unset) and
 * those in `CORS_ORIGINS` get CORS on the REST API and on the database gate's 503; those and the
 * addresses the server listens on may write, through the REST API or the no-script form. A page at
 * any other origin may not, whatever the request's Host header says: a DNS-rebinding page sends
 * its own name there, and its own name in Origin.
 */
export class SiteCors {
  private origins: readonly string[] = []
  private byOrigin = new Map<string, Readonly<Record<string, string>>>()
  private ownList: readonly string[] = []
  private own: ReadonlySet<string> = new Set()

  /**
   * `allowed`: the origins granted CORS; `siteOrigins`: the site's own (listening addresses and
   * SITE_URL's, ownOrigins below). Each is read again whenever it returns another list: the
   * listening address is known only once the server listens.
   */
  constructor(
    private readonly allowed: () => readonly string[],
    private readonly siteOrigins: () => readonly string[] = () => [],
  ) {}

  /**
   * The headers of every REST answer, one object per origin, written into each answer as it is
   * built: changing a finished response makes Hono copy it, a cost every request would pay.
   */
  headersFor(origin: string | null | undefined): Readonly<Record<string, string>> {
    return (origin && this.grants().get(origin)) || PRIVATE
  }

  /**
   * Whether a page at `origin` may write: the site's own origins and the addresses it listens on.
   * Another site's write is refused, not only left unreadable: a form or a fetch without a
   * preflight would otherwise still land. No Origin is a program, not a page (curl, supabase-js on
   * a server), and may write; `Origin: null` (a sandboxed frame) may not.
   */
  writeAllowed(origin: string | null | undefined): boolean {
    return origin === null || origin === undefined || this.grants().has(origin) || this.ownSet().has(origin)
  }

  /**
   * `guarded` (the database gate) for every request but another site's page's write, which
   * `refuse` answers first: it spends neither a database slot nor its visitor's write limit, which
   * runs after the gate. One step of the route's, not one more: the insert path pays a header read.
   */
  writesFromOwnPages<E extends Env>(
    guarded: MiddlewareHandler<E>,
    refuse: (origin: string, c: Context<E>) => Response,
  ): MiddlewareHandler<E> {
    return (c, next) => {
      const origin = c.req.raw.headers.get('origin')
      if (origin === null || READS.has(c.req.method) || this.writeAllowed(origin)) return guarded(c, next)
      return Promise.resolve(refuse(origin, c))
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

  private ownSet(): ReadonlySet<string> {
    const origins = this.siteOrigins()
    if (origins !== this.ownList) {
      this.ownList = origins
      this.own = new Set(origins)
    }
    return this.own
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

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
const WILDCARD = new Set(['0.0.0.0', '[::]'])

/** The addresses of this machine's interfaces a browser can name: IPv4, and IPv6 but link-local. */
function interfaceHosts(ipv6: boolean): string[] {
  return Object.values(networkInterfaces()).flatMap((addresses) =>
    (addresses ?? []).flatMap(({ family, address, scopeid }) => {
      if (family === 'IPv4') return [address]
      return ipv6 && !scopeid ? [`[${address}]`] : []
    }),
  )
}

/**
 * The origins a browser gives a page this server served at an address it listens on. On loopback,
 * 127.0.0.1, localhost and [::1] at its port: a rebound name never reads as one of them. On a
 * wildcard (HOST=0.0.0.0 or ::), those and each interface's address. Else the address itself.
 */
export function listeningOrigins(listenUrl: string): string[] {
  const { protocol, hostname, port } = new URL(listenUrl)
  const wildcard = WILDCARD.has(hostname)
  if (!wildcard && !LOOPBACK.has(hostname)) return [new URL(listenUrl).origin]
  const hosts = [...LOOPBACK, ...(wildcard ? interfaceHosts(hostname === '[::]') : [])]
  return [...new Set(hosts.map((host) => `${protocol}//${host}:${port}`))]
}

/** The site's own origins, which alone may call /mcp: the public address and the listening ones. */
export function ownOrigins(listenUrl: string, publicUrl: string): string[] {
  return [...new Set([...listeningOrigins(listenUrl), new URL(publicUrl).origin])]
}
