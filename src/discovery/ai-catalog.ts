import { MCP_SERVER_CARD_TYPE } from '../../contract/agent-media-types.ts'
import { MCP_PATH, MCP_SERVER_CARD_PATH, requestAccessTool } from '../../contract/agent-tool.ts'
import type { SiteConfig } from '../../contract/site-config'
import { absoluteUrl } from '../../contract/site-url.ts'
import type { SiteHost } from './site-host.ts'
import { icons } from './web-manifest.ts'

/**
 * /.well-known/ai-catalog.json per the Agentic Resource Discovery spec
 * (https://agenticresourcediscovery.org/spec/), checked in tests with the validator Lighthouse ships.
 * Entry types come from the spec's standard list: an unlisted type costs a warning. No type there
 * fits an in-page WebMCP tool (it is not an MCP server card), so the page's tool is told about in
 * llms.txt and in the page itself, not by an entry of its own (ADR 050).
 */
export function aiCatalog(config: SiteConfig, host: SiteHost = 'server'): string {
  const catalog = {
    specVersion: '1.0',
    host: {
      displayName: config.labName,
      documentationUrl: absoluteUrl('/llms.txt'),
      logoUrl: absoluteUrl(icons.png512),
    },
    // A static host serves no /mcp (nor its card): its catalog lists llms.txt alone.
    entries:
      host === 'static' ? [llmsTxtEntry(config, host)] : [mcpServerEntry(config), llmsTxtEntry(config, host)],
  }
  return `${JSON.stringify(catalog, null, 2)}\n`
}

/** The remote MCP server at /mcp, by the URL of its server card (mcp-server-card.ts). */
function mcpServerEntry(config: SiteConfig) {
  const publisher = config.publisherId
  const { name } = requestAccessTool
  return {
    identifier: `urn:air:${publisher}:mcp:waitlist`,
    displayName: `${config.labName} MCP server`,
    type: MCP_SERVER_CARD_TYPE,
    url: absoluteUrl(MCP_SERVER_CARD_PATH),
    description:
      `A remote MCP server (Streamable HTTP, no API key) at ${absoluteUrl(MCP_PATH)} for agents outside a ` +
      `browser, with the same tool ${name}: it answers submitted, already_registered or error in the page's words.`,
    tags: ['waitlist', 'beta-access', 'mcp'],
    capabilities: [name],
    representativeQueries: [
      `connect to the ${config.labName} MCP server`,
      `request access to the ${config.labName} private beta from my assistant`,
      `add my e-mail address to the ${config.wordmark} waitlist`,
    ],
  }
}

/** The guide for agents, llms.txt, which also tells of the page's WebMCP tool. */
function llmsTxtEntry(config: SiteConfig, host: SiteHost) {
  const { name } = requestAccessTool
  return {
    identifier: `urn:air:${config.publisherId}:docs:llms-txt`,
    displayName: `${config.labName} guide for AI agents (llms.txt)`,
    type: 'text/markdown; profile="urn:air:agent-skills"',
    url: absoluteUrl('/llms.txt'),
    description:
      `What ${config.labName} does, its pages, careers page and hiring contact, and how an agent can ` +
      `request beta access for a person: with the WebMCP tool ${name} the page at ${absoluteUrl('/')} gives ` +
      'an in-browser agent' +
      (host === 'static' ? '' : ', with the remote MCP server, or over plain HTTP') +
      '. Markdown per llmstxt.org.',
    tags: ['llms-txt', 'about', 'careers', 'webmcp'],
    capabilities: [name],
    representativeQueries: [
      `what does ${config.labName} build`,
      `how do I apply for a job at ${config.labName}`,
      `how can an AI agent request beta access at ${config.labName}`,
    ],
  }
}
