import { Agent, createServer, type RequestListener, request, type ServerOptions } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RehearsalOptions {
  /** Page loads to make; 0 skips the rehearsal. */
  requests: number
  /** Stop there however many are left, so a slow machine's start-up stays short. */
  deadlineMs: number
}

/** What a browser sends for the page: its precompressed body, or 304 on a reload. */
const BROWSER = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-US,en;q=0.9',
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
}
const CONNECTIONS = 4

/**
 * Enough loads for V8 to have compiled the page's path (2,000 took 0.4-0.5 s here, and cut the
 * page's p99 just after a start, issue 52), bounded in time on a slower machine.
 */
export const REHEARSAL: RehearsalOptions = { requests: 2000, deadlineMs: 600 }

/**
 * Before it listens, the server loads its own page over loopback, through the same request
 * handling a visitor meets, on a listener of its own on 127.0.0.1 that is closed again. A server
 * just started runs its first thousand requests in V8's interpreter, and at a launch they come in
 * the first second: the page's p99 then was 2-3× the minimal server's, the signups' beside them 2×
 * (issue 52). The handler given counts nothing and logs nothing (home-direct.ts with no counter).
 * Returns how many loads were made.
 */
export async function rehearse(
  handler: RequestListener,
  serverOptions: ServerOptions,
  { requests, deadlineMs }: RehearsalOptions,
): Promise<number> {
  if (requests <= 0) return 0
  const server = createServer(serverOptions, handler)
  server.listen(0, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const deadline = performance.now() + deadlineMs
  let made = 0
  const load = () =>
    new Promise<void>((resolve, reject) => {
      const sent = request({ agent, port, host: '127.0.0.1', path: '/', headers: BROWSER }, (response) => {
        response.resume().once('end', resolve).once('error', reject)
      })
      sent.once('error', reject).end()
    })
  const loop = async () => {
    while (made < requests && performance.now() < deadline) {
      made++
      await load()
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
  return made
}
