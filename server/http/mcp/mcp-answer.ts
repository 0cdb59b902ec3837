import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { createMcpServer } from './mcp-server'
import type { ToolDeps } from './request-access-tool'

/**
 * MCP 2026-07-28, through the official SDK's handler: its requests carry their revision in a
 * `_meta` envelope and need no session, so a fresh server answers each one. Strict (`reject`):
 * 2025 requests never reach it, they are routed below first. Made per request, with the request's
 * own deps in its factory: nothing is handed over beside the request.
 */
function answerModern(deps: ToolDeps, request: Request, message: unknown): Promise<Response> {
  const handler = createMcpHandler(() => createMcpServer(deps), { legacy: 'reject' })
  return handler.fetch(request, { parsedBody: message })
}

/**
 * The 2025 revisions (`initialize`, then calls), stateless as ADR 049 has it: a fresh server and
 * transport per request, answering JSON rather than an event stream since every answer is one
 * message. (The SDK's own stateless fallback answers with a stream; this is the composition its
 * docs give for keeping a 2025 wiring beside the strict modern handler.)
 */
async function answerLegacy(deps: ToolDeps, request: Request, message: unknown): Promise<Response> {
  const server = createMcpServer(deps)
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  try {
    await server.connect(transport)
    return await transport.handleRequest(request, { parsedBody: message })
  } finally {
    // The JSON answer is complete by now; nothing of this request's server outlives it.
    await server.close()
  }
}

/** One JSON-RPC message, already read and checked by mcp-app.ts, answered in the era it speaks. */
export async function answerMcpMessage(
  deps: ToolDeps,
  request: Request,
  message: unknown,
): Promise<Response> {
  if (await isLegacyRequest(request, message)) return answerLegacy(deps, request, message)
  return answerModern(deps, request, message)
}
