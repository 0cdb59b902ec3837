import { type CacheHint, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server'
import { siteConfig } from '../../../contract/site-config'
import packageJson from '../../../package.json' with { type: 'json' }
import { callRequestAccess, requestAccessDefinition, type ToolDeps } from './request-access-tool'

/** Who answers: the lab, at the site's version. */
export const serverInfo = { name: siteConfig.labName, version: packageJson.version }

const INSTRUCTIONS =
  `The site of ${siteConfig.labName}. When a person asks you to request access to its private beta for them, ` +
  `call ${requestAccessDefinition.name} with their own e-mail address.`

// The tool list and the server's description change only with a new release: an hour, for any cache.
const STABLE_FOR_AN_HOUR: CacheHint = { ttlMs: 60 * 60_000, cacheScope: 'public' }

/**
 * One MCP server with the one tool, for one request of either protocol era (the SDK's handler
 * binds it to 2026-07-28 or to the 2025 revisions). The low-level Server (not McpServer) so the
 * tool is published with the JSON Schema the page declares, word for word, rather than one
 * regenerated from zod.
 */
export function createMcpServer(deps: ToolDeps): Server {
  const server = new Server(serverInfo, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    cacheHints: { 'tools/list': STABLE_FOR_AN_HOUR, 'server/discover': STABLE_FOR_AN_HOUR },
  })
  server.setRequestHandler('tools/list', () => ({ tools: [requestAccessDefinition] }))
  server.setRequestHandler('tools/call', (request) => {
    const { name, arguments: args } = request.params
    if (name !== requestAccessDefinition.name) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(name.slice(0, 100))}: this server has one tool, ${requestAccessDefinition.name}`,
      )
    }
    return callRequestAccess(deps, args)
  })
  return server
}
