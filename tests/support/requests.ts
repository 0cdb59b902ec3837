import { standardHeaders } from './provider-signing'

/**
 * The requests the tests send a running server, beside the REST insert (harness/waitlist-api.ts):
 * one place, so that a route's headers are written once.
 */

/** Anything with the server's base URL: a TestServer, or the routes' own listener. */
export interface Target {
  url: string
}

/** A provider's event POSTed to /mail-events/{provider} as JSON, with the headers that sign it. */
export function postMailEvent(
  target: Target,
  provider: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${target.url}/mail-events/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
}

/** A relay's event on the generic route, signed with `secret` (Standard Webhooks). */
export function postGenericEvent(target: Target, secret: string, event: object): Promise<Response> {
  const body = JSON.stringify(event)
  return postMailEvent(target, 'generic', body, standardHeaders(secret, body))
}

/** Postmark's Basic auth for the hook's `user:password`, as it sends it. */
export function postmarkAuth(credentials: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }
}

/** A form as a browser without script posts it, from `from` (the proxy's X-Forwarded-For). */
export function postForm(
  url: string,
  fields: Record<string, string>,
  from = '198.51.100.77',
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'x-forwarded-for': from },
    body: new URLSearchParams(fields),
  })
}

/**
 * A request as the team studio's page sends it on a plain-HTTP site (`SITE_URL` http://localhost:PORT,
 * the server reached at 127.0.0.1): the site's Origin and the session's cookie, which has no
 * `__Host-` prefix there; JSON when `json` is given, which makes it a POST.
 */
export function teamStudioCall(
  site: string,
  token: string,
  path: string,
  init: { json?: unknown; method?: 'GET' | 'POST' } = {},
): Promise<Response> {
  const base = site.replace('//localhost:', '//127.0.0.1:')
  return fetch(`${base}/studio${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      Origin: site,
      Cookie: `studio-session=${token}`,
      ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })
}
