import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import type { Logger } from '../../base/log'
import type { Database } from '../../db/database'
import { createMcpServer } from './mcp-server'
import type { SignupHooks } from './request-access-tool'

interface RequestDeps {
  db: Database
  log: Logger
  signup?: SignupHooks
}

// What each request's server needs, found by the request the SDK hands its factory.
const depsOf = new WeakMap<Request, RequestDeps>()

/**
 * MCP 2026-07-28, through the official SDK's handler: its requests carry their revision in a
 * `_meta` envelope and need no session, so a fresh server answers each one. Strict (`reject`):
 * 2025 requests never reach it, they are routed below first.
 */
const modern = createMcpHandler(
  ({ requestInfo }) => {
    const deps = requestInfo && depsOf.get(requestInfo)
    if (!deps) throw new Error('An MCP request reached the SDK without its dependencies')
    return createMcpServer(deps.db, deps.log, deps.signup)
  },
  { legacy: 'reject' },
)

/**
 * The 2025 revisions (`initialize`, then calls), stateless as ADR 013 has it: a fresh server and
 * transport per request, answering JSON rather than an event stream since every answer is one
 * message. (The SDK's own stateless fallback answers with a stream; this is the composition its
 * docs give for keeping a 2025 wiring beside the strict modern handler.)
 */
async function answerLegacy(deps: RequestDeps, request: Request, message: unknown): Promise<Response> {
  const server = createMcpServer(deps.db, deps.log, deps.signup)
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
  db: Database,
  log: Logger,
  request: Request,
  message: unknown,
  /** Told when the tool stored a new entry; the addresses it refuses. */
  signup?: SignupHooks,
): Promise<Response> {
  const deps = { db, log, signup }
  if (await isLegacyRequest(request, message)) return answerLegacy(deps, request, message)
  depsOf.set(request, deps)
  try {
    return await modern.fetch(request, { parsedBody: message })
  } finally {
    depsOf.delete(request)
  }
}
