import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import { siteConfig } from '../../../contract/site-config'
import packageJson from '../../../package.json' with { type: 'json' }
import type { Logger } from '../../boot/log'
import type { Database } from '../../db/database'
import { callRequestAccess, requestAccessDefinition, type SignupHooks } from './request-access-tool'

/** Who answers: the lab, at the site's version. */
export const serverInfo = { name: siteConfig.labName, version: packageJson.version }

const INSTRUCTIONS =
  `The site of ${siteConfig.labName}. When a person asks you to request access to its private beta for them, ` +
  `call ${requestAccessDefinition.name} with their own e-mail address.`

/**
 * One MCP server with the one tool. The low-level Server (not McpServer) so the tool is published
 * with the JSON Schema the page declares, word for word, rather than one regenerated from zod.
 */
export function createMcpServer(db: Database, log: Logger, signup?: SignupHooks): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [requestAccessDefinition] }))
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name, arguments: args } = request.params
    if (name !== requestAccessDefinition.name) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(name.slice(0, 100))}: this server has one tool, ${requestAccessDefinition.name}`,
      )
    }
    return callRequestAccess(db, log, args, signup)
  })
  return server
}
