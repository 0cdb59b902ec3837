import type { MiddlewareHandler } from 'hono'
import { JsonRpcCode, jsonRpcError } from './json-rpc'

// What an MCP client in a browser page sends (Mcp-Method and Mcp-Name from 2026-07-28 on); no
// session header, since the server keeps no session.
const ALLOWED_HEADERS = 'Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name'

function originOf(value: string): string | undefined {
  try {
    const { origin } = new URL(value)
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}

/**
 * The Streamable HTTP transport's guard against DNS rebinding
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning):
 * a request from a browser page carries `Origin`, and only the site's own origins may call. The
 * Host header proves nothing here (a rebound name is the attacker's own), so the allowed origins
 * come from the server's configuration: SITE_URL and the address it listens on. Requests without
 * `Origin` come from programs, not pages, and pass. Allowed pages get CORS for exactly their origin.
 */
export function originGuard(allowedOrigins: () => readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('origin')
    if (header === undefined) return next()
    const origin = originOf(header)
    if (!origin || !allowedOrigins().includes(origin)) {
      return jsonRpcError(
        403,
        JsonRpcCode.ServerError,
        'Forbidden: this MCP endpoint answers pages of its own site only (the Origin header names another site)',
        { Vary: 'Origin' },
      )
    }
    const cors = { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
    if (c.req.method === 'OPTIONS') {
      return c.body(null, 204, {
        ...cors,
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
      })
    }
    await next()
    for (const [name, value] of Object.entries(cors)) c.res.headers.set(name, value)
  }
}
