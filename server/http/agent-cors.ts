import { HOME_MARKDOWN_PATH } from '../../contract/agent-links'
import { MCP_SERVER_CARD_PATH } from '../../contract/agent-tool'

/**
 * The files agents and registries read may be fetched from any origin (a browser-based agent, a
 * registry's web crawler): ARD's publishing guide asks for `Access-Control-Allow-Origin: *` on the
 * catalog, llms.txt is as public, and the MCP server-card extension asks the same of the card, with
 * its ETag readable and `If-None-Match` allowed so a browser can revalidate it. They are static
 * and carry no credentials, so this is safe.
 */
const AGENT_FILES = new Set([
  '/.well-known/ai-catalog.json',
  '/llms.txt',
  '/llms-full.txt',
  HOME_MARKDOWN_PATH,
  MCP_SERVER_CARD_PATH,
])

export function withAgentCors(path: string, response: Response): Response {
  if (AGENT_FILES.has(path)) {
    response.headers.set('Access-Control-Allow-Origin', '*')
    response.headers.set('Access-Control-Expose-Headers', 'ETag')
  }
  return response
}

/** The answer to a browser's preflight for an agent file (a GET with If-None-Match needs one). */
export function agentPreflight(path: string): Response | undefined {
  if (!AGENT_FILES.has(path)) return undefined
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET',
      'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
      'Access-Control-Max-Age': '600',
    },
  })
}
