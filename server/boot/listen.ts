import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Hono } from 'hono'
import { jsonError } from '../http/middleware/json-error'
import { httpServerOptions, onClientError } from '../http/middleware/node-limits'
import { type SecurityHeaderOptions, securityHeaders } from '../http/middleware/security-headers'
import { type RehearsalOptions, type Rehearsed, rehearse } from '../http/rehearsal'
import { appPaths } from './app-paths'
import type { ServerEnv } from './env'

export interface Listening {
  /** http://host:port, with the port the system gave when PORT is 0. */
  url: string
  /** What was rehearsed before listening (rehearsal.ts); undefined without a rehearsal. */
  rehearsed?: Rehearsed
  /** Stops accepting, lets in-flight requests finish (each closing its connection), then resolves. */
  close(): Promise<void>
}

/** What answers every request the app has no route for, in place of the built site: Vite, under `npm run dev`. */
export interface Pages {
  handle(request: IncomingMessage, response: ServerResponse): void
  close(): Promise<void>
}

/** Answers a request itself on Node's response (after the security headers), or returns false for the app. */
export type DirectAnswer = (request: IncomingMessage, response: ServerResponse) => boolean

/** A launch's first second played before listening (ADR 102), by answers that keep nothing. */
export interface Rehearsal extends RehearsalOptions {
  /** The home page's answer, counting and logging nothing. */
  direct: DirectAnswer
  /** The app on a database that rolls every write back, logging nothing. */
  app: Hono
  /** The anon key, for the signups as the page sends them. */
  anonKey: string
}

/**
 * Serves the app over node:http on HOST:PORT, with Node's own limits, the security headers on
 * every answer, and malformed requests answered as PostgREST would. With direct, the requests it
 * takes never reach the app (the home page, server/http/home-direct.ts). With pages, the requests for no
 * route of the app's go to them, without the app's headers (Vite's page runs inline code). With
 * rehearsal, page loads and signups go through the same handling over loopback before it listens
 * (rehearsal.ts), to the rehearsal's own answers, which keep nothing.
 */
export async function listen(
  app: Hono,
  env: ServerEnv,
  security: SecurityHeaderOptions,
  pagesFor?: (server: Server) => Promise<Pages>,
  direct?: DirectAnswer,
  rehearsal?: Rehearsal,
): Promise<Listening> {
  const state = { draining: false }
  const limits = { headersTimeoutMs: env.HEADERS_TIMEOUT_MS, requestTimeoutMs: env.REQUEST_TIMEOUT_MS }
  const withSecurityHeaders = securityHeaders(security)
  const isApps = appPaths(app)
  let pages: Pages | undefined
  const handlerWith = (app: Hono, direct: DirectAnswer | undefined): RequestListener => {
    const listener = appListener(app, env, state)
    return (request, response) => {
      if (pages && !isApps(request.method ?? '', request.url?.split('?')[0] ?? '')) {
        return pages.handle(request, response)
      }
      withSecurityHeaders(request, response)
      // While draining, the app answers: it closes each connection as it answers.
      if (direct && !state.draining && direct(request, response)) return
      return listener(request, response)
    }
  }
  // Not under `npm run dev` (pages): Vite's page is not the one visitors get.
  const rehearsed =
    rehearsal && !pagesFor
      ? await rehearse(handlerWith(rehearsal.app, rehearsal.direct), httpServerOptions(limits), rehearsal)
      : undefined
  const server = createServer(httpServerOptions(limits), handlerWith(app, direct))
  server.on('clientError', onClientError)
  pages = await pagesFor?.(server)
  server.listen(env.PORT, env.HOST)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  }).catch(async (error) => {
    await pages?.close()
    throw error
  })
  const { port } = server.address() as AddressInfo
  const host = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST
  return {
    url: `http://${host}:${port}`,
    rehearsed,
    async close() {
      state.draining = true
      // Vite's hot-reload sockets first: server.close() would wait for them.
      await pages?.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
        server.closeIdleConnections()
      })
    },
  }
}

function appListener(app: Hono, env: ServerEnv, state: { draining: boolean }) {
  return getRequestListener(
    async (request, bindings) => {
      const response = await app.fetch(request, bindings)
      // While draining, each answer closes its connection so keep-alive clients let go.
      if (state.draining) {
        try {
          response.headers.set('Connection', 'close')
        } catch {
          // Immutable headers (Response.redirect()): Node closes the socket once the server is closed.
        }
      }
      return response
    },
    {
      hostname: env.HOST,
      // A request Node accepted but the Fetch API cannot represent (bad Host, backslash in the path).
      // The security headers are already on Node's response.
      errorHandler: () => jsonError(400, 'PGRST400', 'Malformed HTTP request'),
    },
  )
}
