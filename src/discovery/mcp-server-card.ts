import { MCP_PATH, MCP_PROTOCOL_VERSIONS } from '../../contract/agent-tool.ts'
import type { SiteConfig } from '../../contract/site-config'
import { absoluteUrl } from '../../contract/site-url.ts'
import packageJson from '../../package.json' with { type: 'json' }
import { icons } from './web-manifest.ts'

/** The card's name: the publisher's domain reversed, then the server (`example.lab/waitlist`). */
export const mcpServerName = (config: SiteConfig) =>
  `${config.publisherId.split('.').reverse().join('.')}/waitlist`

/**
 * The MCP server card of /mcp, served at /mcp/server-card: who the server is and how to connect,
 * before any MCP exchange. It follows the MCP server-card extension (SEP-2127; its discovery
 * draft of 2026-07-24 and the v1 card schema): identity, the site and its icons, and the one
 * Streamable HTTP remote with the revisions it answers. Tools stay behind `tools/list`, as the
 * extension asks, so nothing here can drift from what the server lists.
 */
export function mcpServerCard(config: SiteConfig): string {
  const card = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: mcpServerName(config),
    version: packageJson.version,
    title: `${config.labName} private beta access`,
    // At most 100 characters, as the schema has it.
    description: `Request access to the ${config.labName} private beta for a person, with their e-mail address.`,
    websiteUrl: absoluteUrl('/'),
    icons: [
      { src: absoluteUrl(icons.png512), mimeType: 'image/png', sizes: ['512x512'] },
      { src: absoluteUrl(icons.png192), mimeType: 'image/png', sizes: ['192x192'] },
      { src: absoluteUrl(icons.svg), mimeType: 'image/svg+xml', sizes: ['any'] },
    ],
    remotes: [
      {
        type: 'streamable-http',
        url: absoluteUrl(MCP_PATH),
        supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
      },
    ],
  }
  return `${JSON.stringify(card, null, 2)}\n`
}
