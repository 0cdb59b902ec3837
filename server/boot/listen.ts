import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Hono } from 'hono'
import { jsonError } from '../http/middleware/json-error'
import { httpServerOptions, onClientError } from '../http/middleware/node-limits'
import { type SecurityHeaderOptions, securityHeaders } from '../http/middleware/security-headers'
import type { ServerEnv } from './env'

export interface Listening {
  /** http://host:port, with the port the system gave when PORT is 0. */
  url: string
  /** Stops accepting, lets in-flight requests finish (each closing its connection), then resolves. */
  close(): Promise<void>
}

/**
 * Serves the app over node:http on HOST:PORT, with Node's own limits, the security headers on
 * every answer, and malformed requests answered as PostgREST would.
 */
export async function listen(app: Hono, env: ServerEnv, security: SecurityHeaderOptions): Promise<Listening> {
  let draining = false
  const listener = getRequestListener(
    async (request, bindings) => {
      const response = await app.fetch(request, bindings)
      // While draining, each answer closes its connection so keep-alive clients let go.
      if (draining) {
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
  const limits = { headersTimeoutMs: env.HEADERS_TIMEOUT_MS, requestTimeoutMs: env.REQUEST_TIMEOUT_MS }
  const withSecurityHeaders = securityHeaders(security)
  const server = createServer(httpServerOptions(limits), (request, response) => {
    withSecurityHeaders(request, response)
    return listener(request, response)
  })
  server.on('clientError', onClientError)
  server.listen(env.PORT, env.HOST)
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  const host = env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST
  return {
    url: `http://${host}:${port}`,
    close: () => {
      draining = true
      return new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
        server.closeIdleConnections()
      })
    },
  }
}
