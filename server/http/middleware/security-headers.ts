import type { IncomingMessage, ServerResponse } from 'node:http'

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
 * Sets the security headers on Node's response before the app runs. Node merges the app's own
 * headers over them in writeHead, so every answer carries them: pages, the API, errors, and the
 * 400s @hono/node-server makes before any route. Added to a finished Response instead, they would
 * make @hono/node-server turn its plain header object into a Headers and back on every request.
 */
export function securityHeaders(
  options: SecurityHeaderOptions = {},
): (request: IncomingMessage, response: ServerResponse) => void {
  const values = Object.entries(securityHeaderValues(options))
  return (request, response) => {
    for (const [name, value] of values) response.setHeader(name, value)
    if (options.hsts || (options.trustProxy && forwardedAsHttps(request.headers['x-forwarded-proto'])))
      response.setHeader('Strict-Transport-Security', HSTS_VALUE)
  }
}

// The proxy nearest to us appends its own scheme last; earlier entries are the client's to forge.
const forwardedAsHttps = (proto: string | string[] | undefined) =>
  typeof proto === 'string' && proto.split(',').at(-1)?.trim() === 'https'
