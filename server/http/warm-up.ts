import { randomBytes } from 'node:crypto'
import { Agent, request } from 'node:http'

/**
 * Marks the warm-up's requests, with a value made at each start and known to this process alone,
 * so the access log can leave them out (app.ts). Anyone else sending it is logged as ever.
 */
export const WARM_UP_HEADER = 'x-warm-up'

export const warmUpToken = (): string => randomBytes(18).toString('base64url')

export interface WarmUpOptions {
  /** The server's own address, listening (loopback for a wildcard host). */
  url: string
  token: string
  /** The signups' key: the owner's, which no rate limit or address policy charges. */
  serviceKey: string
  /** WARM_UP_MS: it stops there however many loads are left, so a slow machine's start-up stays short. */
  ms: number
}

/**
 * Enough for V8 to have compiled both paths (2,000 loads and 400 signups from outside brought a
 * just-started server's first second to the minimal server's, 20 loads did nothing: issue 52).
 */
export const WARM_UP_LOADS = { pages: 2000, signups: 400 }

/** What was warmed: the answers as expected, of each kind. */
export interface WarmedUp {
  pages: number
  signups: number
  /** How long it took, in milliseconds. */
  ms: number
}

/** What a browser sends for the page: its precompressed body. */
const BROWSER = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-US,en;q=0.9',
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
}
const CONNECTIONS = 4

/** What the page's signup sends beside a browser's own headers: supabase-js's insert, no row back. */
export const pageSignupHeaders = (key: string): Record<string, string> => ({
  accept: '*/*',
  apikey: key,
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  'content-profile': 'public',
  prefer: 'return=minimal',
})

interface Sent {
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
  /** The status the warm-up expects. */
  expected: number
}

/**
 * A page load as a browser prefetches it: the same answer, which analytics counts as no visit
 * (source-of.ts), as it counts no browser's prefetch.
 */
const pageLoad = (token: string): Sent => ({
  method: 'GET',
  path: '/',
  headers: { ...BROWSER, 'sec-purpose': 'prefetch', [WARM_UP_HEADER]: token },
  expected: 200,
})

/**
 * The page's signup through the REST API, all the way into the database, of an address that the
 * table's own check refuses (waitlist_email_format; one row is left to the database, signup.ts): no
 * row, no trigger, no mail, PostgREST's 400. Sent with the owner's key, which no rate limit charges
 * (the warm-up's 400 signups come from one address) and no address policy asks DNS about.
 */
const signup = (token: string, serviceKey: string): Sent => ({
  method: 'POST',
  path: '/rest/v1/waitlist',
  headers: { ...BROWSER, ...pageSignupHeaders(serviceKey), [WARM_UP_HEADER]: token },
  body: JSON.stringify({ email: 'warm-up' }),
  expected: 400,
})

/**
 * After it listens, and before /healthz says it is ready, the server plays a launch's first second
 * to itself over loopback, through the one app a visitor meets (ADR 111). A server just started
 * runs its first thousand requests in V8's interpreter, and at a launch they come at once. Nothing
 * of it is kept: no visit counted, no row, no access log line.
 */
export async function warmUp({ url, token, serviceKey, ms }: WarmUpOptions): Promise<WarmedUp> {
  const started = performance.now()
  const done: WarmedUp = { pages: 0, signups: 0, ms: 0 }
  const { pages, signups } = WARM_UP_LOADS
  const total = pages + signups
  const { hostname, port } = new URL(url)
  const host = hostname.replace(/^\[|\]$/g, '')
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const send = (sent: Sent) =>
    new Promise<boolean>((resolve, reject) => {
      const outgoing = request({ agent, host, port, ...sent }, (response) => {
        response
          .resume()
          .once('end', () => resolve(response.statusCode === sent.expected))
          .once('error', reject)
      })
      outgoing.once('error', reject).end(sent.body)
    })
  // Signups spread among the loads, as they come at a launch, the first of them first: however
  // soon the time runs out on a busy machine, both paths were taken.
  const every = Math.max(1, Math.floor(total / signups))
  const deadline = started + ms
  let next = 0
  const loop = async () => {
    while (next < total && performance.now() < deadline) {
      const n = next++
      const isSignup = n % every === 0 && n / every < signups
      if (await send(isSignup ? signup(token, serviceKey) : pageLoad(token)))
        done[isSignup ? 'signups' : 'pages']++
    }
  }
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, loop))
  } finally {
    agent.destroy()
  }
  done.ms = performance.now() - started
  return done
}
