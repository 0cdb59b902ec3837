import { MCP_PATH, requestAccessTool } from '../../contract/agent-tool.ts'
import type { SiteConfig } from '../../contract/site-config'
import { absoluteUrl } from '../../contract/site-url.ts'
import packageJson from '../../package.json' with { type: 'json' }
import type { SiteHost } from './agent-files.ts'
import { icons } from './web-manifest.ts'

/**
 * /.well-known/ai-catalog.json per the Agentic Resource Discovery spec
 * (https://agenticresourcediscovery.org/spec/), checked in tests with the validator Lighthouse ships.
 * Entry types come from the spec's standard list: an unlisted type costs a warning.
 */
export function aiCatalog(config: SiteConfig, host: SiteHost = 'server'): string {
  const catalog = {
    specVersion: '1.0',
    host: {
      displayName: config.labName,
      documentationUrl: absoluteUrl('/llms.txt'),
      logoUrl: absoluteUrl(icons.png512),
    },
    // A static host serves no /mcp: its catalog lists what the page itself offers.
    entries:
      host === 'static'
        ? [webMcpEntry(config, host), llmsTxtEntry(config)]
        : [webMcpEntry(config, host), mcpServerEntry(config), llmsTxtEntry(config)],
  }
  return `${JSON.stringify(catalog, null, 2)}\n`
}

/** The in-page WebMCP tool. */
function webMcpEntry(config: SiteConfig, host: SiteHost) {
  const publisher = config.publisherId
  const { name, description, inputSchema } = requestAccessTool
  return {
    identifier: `urn:air:${publisher}:webmcp:${name}`,
    displayName: `${config.labName} private beta access`,
    type: 'application/mcp-server-card+json',
    description:
      `The WebMCP tool the page at ${absoluteUrl('/')} gives an in-browser agent ` +
      '(document.modelContext, and the access-request form itself): join the private beta waitlist ' +
      'with an e-mail address.' +
      (host === 'static'
        ? ''
        : ' Outside a browser, the remote MCP server listed beside it serves the same tool.'),
    tags: ['waitlist', 'beta-access', 'webmcp'],
    capabilities: [name],
    representativeQueries: [
      `request access to the ${config.labName} private beta`,
      `join the ${config.wordmark} waitlist with my e-mail address`,
      'sign up for early access to agent infrastructure for tool use and long multi-turn tasks',
    ],
    data: {
      name: `${publisher}-webmcp`,
      description: `In-page WebMCP tools of ${config.labName}'s site.`,
      tools: [{ name, description, inputSchema }],
    },
  }
}

/** The remote MCP server at /mcp, with its MCP Server Card. */
function mcpServerEntry(config: SiteConfig) {
  const publisher = config.publisherId
  const { name } = requestAccessTool
  return {
    identifier: `urn:air:${publisher}:mcp:waitlist`,
    displayName: `${config.labName} MCP server`,
    type: 'application/mcp-server-card+json',
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
    // An MCP Server Card (SEP-2127): who the server is and where to connect.
    data: {
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: `${publisher.split('.').reverse().join('.')}/waitlist`,
      title: `${config.labName} private beta access`,
      description: `Request access to the private beta of ${config.labName} for a person, with their e-mail address.`,
      version: packageJson.version,
      remotes: [{ type: 'streamable-http', url: absoluteUrl(MCP_PATH) }],
    },
  }
}

/** The guide for agents, llms.txt. */
function llmsTxtEntry(config: SiteConfig) {
  return {
    identifier: `urn:air:${config.publisherId}:docs:llms-txt`,
    displayName: `${config.labName} guide for AI agents (llms.txt)`,
    type: 'text/markdown; profile="urn:air:agent-skills"',
    url: absoluteUrl('/llms.txt'),
    description:
      `What ${config.labName} does, its pages, careers page and hiring contact, and how an agent can ` +
      'request beta access for a person: Markdown per llmstxt.org.',
    tags: ['llms-txt', 'about', 'careers'],
    representativeQueries: [
      `what does ${config.labName} build`,
      `how do I apply for a job at ${config.labName}`,
      `how can an AI agent request beta access at ${config.labName}`,
    ],
  }
}
