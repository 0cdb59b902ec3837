import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { requestAccessTool } from '../../contract/agent-tool'

/** MCP 2026-07-28, the revision the raw requests below speak. */
export const MODERN_MCP = '2026-07-28'

/** The `_meta` envelope every 2026-07-28 request carries: the revision, who calls, what it can do. */
export const modernEnvelope = (client = 'raw-client') => ({
  'io.modelcontextprotocol/protocolVersion': MODERN_MCP,
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
})

/** The standard headers of a 2026-07-28 request, which must agree with its body. */
export const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'Mcp-Protocol-Version': MODERN_MCP,
  'Mcp-Method': method,
  ...(name ? { 'Mcp-Name': name } : {}),
})

export type McpAnswer = {
  id?: unknown
  result?: { tools?: { name: string }[] } & Record<string, unknown>
  error?: { code: number; message: string }
}

/** One raw POST to a server's /mcp (a string body is sent as it is), and its JSON answer. */
export async function postMcp(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: McpAnswer }> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as McpAnswer }
}

/**
 * The page's tool called as a 2025-era client calls it, with no session, with any answers to the
 * lab's questions beside the address: the answer as sent.
 */
export async function requestAccessOverMcp(
  baseUrl: string,
  email: string,
  answers: Record<string, string> = {},
): Promise<string> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: requestAccessTool.name, arguments: { email, ...answers } },
    }),
  })
  return response.text()
}
