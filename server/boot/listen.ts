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
import { headersOutsideTheApp, type SecurityHeaderOptions } from '../http/middleware/security-headers'
import { appPaths } from './app-paths'
import type { ServerEnv } from './env'

export interface Listening {
  /** http://host:port, with the port the system gave when PORT is 0. */
  url: string
  /** Stops accepting, lets in-flight requests finish (each closing its connection), then resolves. */
  close(): Promise<void>
}

/** What answers every request the app has no route for, in place of the built site: Vite, under `npm run dev`. */
export interface Pages {
  handle(request: IncomingMessage, response: ServerResponse): void
  close(): Promise<void>
}

/**
 * Serves the app over node:http on HOST:PORT, with Node's own limits, and malformed requests
 * answered as PostgREST would. Every request goes to the app, whose middleware sets the security
 * headers (server/http/middleware/security-headers.ts). With pages, the requests for no route of
 * the app's go to them, without the app's headers (Vite's page runs inline code).
 */
export async function listen(
  app: Hono,
  env: ServerEnv,
  security: SecurityHeaderOptions,
  pagesFor?: (server: Server) => Promise<Pages>,
): Promise<Listening> {
  const state = { draining: false }
  const limits = { headersTimeoutMs: env.HEADERS_TIMEOUT_MS, requestTimeoutMs: env.REQUEST_TIMEOUT_MS }
  const isApps = appPaths(app)
  const listener = appListener(app, env, security, state)
  let pages: Pages | undefined
  const handler: RequestListener = (request, response) => {
    if (pages && !isApps(request.method ?? '', request.url?.split('?')[0] ?? '')) {
      return pages.handle(request, response)
    }
    return listener(request, response)
  }
  const server = createServer(httpServerOptions(limits), handler)
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

function appListener(
  app: Hono,
  env: ServerEnv,
  security: SecurityHeaderOptions,
  state: { draining: boolean },
) {
  const outside = headersOutsideTheApp(security)
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
      // A request Node accepted but the Fetch API cannot represent (bad Host, backslash in the
      // path): the app never saw it, so its headers are added here.
      errorHandler: () => jsonError(400, 'PGRST400', 'Malformed HTTP request', null, outside),
    },
  )
}
