import { Agent, createServer, type RequestListener, request, type ServerOptions } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RehearsalOptions {
  /** Page loads to make. */
  pages: number
  /** Signups among them, as the page sends them (one for every five loads, as at a launch). */
  signups: number
  /** Stop there however many are left, so a slow machine's start-up stays short. */
  deadlineMs: number
}

/**
 * Enough for V8 to have compiled both paths (2,000 loads and 400 signups from outside brought a
 * just-started server's first second to the minimal server's, 20 loads did nothing: issue 52),
 * bounded in time on a slower machine.
 */
export const REHEARSAL: RehearsalOptions = { pages: 2000, signups: 400, deadlineMs: 500 }

/** What was rehearsed: the answers that succeeded, of each kind. */
export interface Rehearsed {
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

interface Sent {
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
}

/** What the page's signup sends beside a browser's own headers: supabase-js's insert, no row back. */
export const pageSignupHeaders = (anonKey: string): Record<string, string> => ({
  accept: '*/*',
  apikey: anonKey,
  authorization: `Bearer ${anonKey}`,
  'content-type': 'application/json',
  'content-profile': 'public',
  prefer: 'return=minimal',
})

/** The page's own signup through the REST API, one address each. */
function signup(anonKey: string, n: number): Sent {
  return {
    method: 'POST',
    path: '/rest/v1/waitlist',
    headers: { ...BROWSER, ...pageSignupHeaders(anonKey) },
    body: JSON.stringify({ email: `rehearsal-${n}@example.com` }),
  }
}

/**
 * Before it listens, the server plays a launch's first second to itself over loopback, through
 * the same request handling a visitor meets, on a listener of its own on 127.0.0.1 that is closed
 * again (ADR 102). A server just started runs its first thousand requests in V8's interpreter, and
 * at a launch they come at once. The handler given keeps nothing: its home page counts and logs
 * nothing (home-direct.ts without a counter), its app logs nothing and its database rolls every
 * write back (Database.rolledBack).
 */
export async function rehearse(
  handler: RequestListener,
  serverOptions: ServerOptions,
  { pages, signups, deadlineMs, anonKey }: RehearsalOptions & { anonKey: string },
): Promise<Rehearsed> {
  const started = performance.now()
  const done: Rehearsed = { pages: 0, signups: 0, ms: 0 }
  const total = pages + signups
  if (total <= 0) return done
  const server = createServer(serverOptions, handler)
  server.listen(0, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const send = (sent: Sent) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = request({ agent, port, host: '127.0.0.1', ...sent }, (response) => {
        response
          .resume()
          .once('end', () => resolve(response.statusCode ?? 0))
          .once('error', reject)
      })
      outgoing.once('error', reject).end(sent.body)
    })
  // Signups spread among the loads, as they come at a launch, the first of them first: however
  // soon the deadline comes on a busy machine, both paths were taken.
  const every = signups > 0 ? Math.max(1, Math.floor(total / signups)) : Number.POSITIVE_INFINITY
  const deadline = started + deadlineMs
  let next = 0
  const loop = async () => {
    while (next < total && performance.now() < deadline) {
      const n = next++
      const isSignup = n % every === 0 && n / every < signups
      const status = await send(
        isSignup ? signup(anonKey, n) : { method: 'GET', path: '/', headers: BROWSER },
      )
      if (status >= 200 && status < 300) done[isSignup ? 'signups' : 'pages']++
    }
  }
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, loop))
  } finally {
    agent.destroy()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
  done.ms = performance.now() - started
  return done
}
