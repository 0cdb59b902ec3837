import { MCP_SERVER_CARD_PATH } from './agent-tool.ts'

/** The AI catalog's media type (its spec, and the MCP server-card extension's discovery draft). */
export const AI_CATALOG_TYPE = 'application/ai-catalog+json'
/** An MCP server card's media type (the MCP server-card extension, SEP-2127). */
export const MCP_SERVER_CARD_TYPE = 'application/mcp-server-card+json'

/**
 * The generated files whose media type their name does not tell, by path on the site: the server
 * (server/http/static-site.ts) and the dev server (build/agent-files-plugin.ts) both send these.
 * JSON defines no charset parameter; these types are UTF-8 by definition.
 */
export const AGENT_MEDIA_TYPES: Readonly<Record<string, string>> = {
  '/.well-known/ai-catalog.json': AI_CATALOG_TYPE,
  [MCP_SERVER_CARD_PATH]: MCP_SERVER_CARD_TYPE,
}
