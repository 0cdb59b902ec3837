import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Logger } from '../../boot/log'
import type { Database } from '../../db/database'
import { createMcpServer } from './mcp-server'
import type { SignupHooks } from './request-access-tool'

/**
 * One JSON-RPC message through the SDK, stateless: a fresh server and transport for this request
 * alone, answering JSON rather than an event stream since every answer is one message.
 */
export async function answerMcpMessage(
  db: Database,
  log: Logger,
  request: Request,
  message: unknown,
  /** Told when the tool stored a new entry; the addresses it refuses. */
  signup?: SignupHooks,
): Promise<Response> {
  const server = createMcpServer(db, log, signup)
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
