import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { HOME_MARKDOWN_PATH } from '../../contract/agent-links'
import { MCP_SERVER_CARD_PATH } from '../../contract/agent-tool'

/**
 * The files agents and registries read may be fetched from any origin (a browser-based agent, a
 * registry's web crawler): ARD's publishing guide asks for `Access-Control-Allow-Origin: *` on the
 * catalog, llms.txt is as public, and the MCP server-card extension asks the same of the card, with
 * its ETag readable and `If-None-Match` allowed so a browser can revalidate it. They are static
 * and carry no credentials, so this is safe, and hono/cors says it as the library does. (The REST
 * API's CORS is the site's own, site-cors.ts: Supabase's gateway answers it otherwise.)
 */
export const AGENT_FILES: readonly string[] = [
  '/.well-known/ai-catalog.json',
  '/llms.txt',
  '/llms-full.txt',
  HOME_MARKDOWN_PATH,
  MCP_SERVER_CARD_PATH,
]

export const agentCors: MiddlewareHandler = cors({
  origin: '*',
  allowMethods: ['GET'],
  allowHeaders: ['Content-Type', 'If-None-Match'],
  exposeHeaders: ['ETag'],
  maxAge: 600,
})
