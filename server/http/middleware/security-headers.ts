import type { HttpBindings } from '@hono/node-server'
import type { Context, MiddlewareHandler } from 'hono'

export interface SecurityHeaderOptions {
  /** Origins the page may call besides its own: a hosted Supabase project when the build points there. */
  connectOrigins?: string[]
  /** 'sha256-…' sources of the inline scripts the pages run (server/http/inline-scripts.ts). */
  scriptHashes?: string[]
  /** Always send HSTS (the site is only ever reached over HTTPS). */
  hsts?: boolean
  /** Set when a trusted proxy terminates TLS: its X-Forwarded-Proto says whether this request was HTTPS. */
  trustProxy?: boolean
}

const HSTS_VALUE = 'max-age=31536000'

// Powerful features the page never uses, switched off for it and anything it could embed.
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'browsing-topics=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'payment=()',
  'usb=()',
].join(', ')

/**
 * The Content-Security-Policy: scripts only from this origin, plus the page's one inline script (the
 * after-paint loader) by its hash, never 'unsafe-inline'; a JSON-LD block is data, not script, and
 * needs no allowance. Inline styles are allowed because critical CSS is inlined and style
 * attributes carry no script.
 */
export function contentSecurityPolicy(connectOrigins: string[] = [], scriptHashes: string[] = []): string {
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...scriptHashes].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    ['connect-src', "'self'", ...connectOrigins].join(' '),
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The same headers on every answer: pages, assets, API errors and the 404 page alike. */
export function securityHeaderValues(options: SecurityHeaderOptions = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options.connectOrigins, options.scriptHashes),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
    'Cross-Origin-Opener-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  }
}

/**
 * The security headers as the app's outermost middleware, so every answer it makes carries them:
 * pages, assets, the API, its errors and the 404 page. Served by @hono/node-server they are set on
 * Node's response before the routes run, and Node merges the app's own headers over them: a
 * Response whose headers were touched after it was made would leave the adapter's fast path (it
 * writes a Response built from plain headers as it is) for a copy of every header and a read of
 * the body as a stream. Under `app.request()` (no Node response), they are added to the answer,
 * where a route's own header wins as it does in Node's merge.
 */
export function securityHeaders(options: SecurityHeaderOptions = {}): MiddlewareHandler<{
  Bindings: Partial<HttpBindings>
}> {
  const values = Object.entries(securityHeaderValues(options))
  const withHsts: [string, string][] = [...values, ['Strict-Transport-Security', HSTS_VALUE]]
  const hsts = (c: Context) =>
    options.hsts || (options.trustProxy && forwardedAsHttps(c.req.header('x-forwarded-proto')))
  return async (c, next) => {
    const outgoing = c.env?.outgoing
    const all = hsts(c) ? withHsts : values
    if (outgoing) {
      for (const [name, value] of all) outgoing.setHeader(name, value)
      return next()
    }
    await next()
    const add = () => {
      for (const [name, value] of all) if (!c.res.headers.has(name)) c.res.headers.set(name, value)
    }
    try {
      add()
    } catch {
      // Headers that cannot change (Response.redirect()'s): on a copy of the answer.
      c.res = new Response(c.res.body, c.res)
      add()
    }
  }
}

/**
 * The headers for an answer made outside the app: @hono/node-server's 400 for a request the Fetch
 * API cannot represent (server/boot/listen.ts). HSTS only when always sent: the request could not be read.
 */
export function headersOutsideTheApp(options: SecurityHeaderOptions = {}): Record<string, string> {
  const values = securityHeaderValues(options)
  return options.hsts ? { ...values, 'Strict-Transport-Security': HSTS_VALUE } : values
}

// The proxy nearest to us appends its own scheme last; earlier entries are the client's to forge.
const forwardedAsHttps = (proto: string | undefined) => proto?.split(',').at(-1)?.trim() === 'https'
