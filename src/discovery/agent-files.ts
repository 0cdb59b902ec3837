import { HOME_MARKDOWN_PATH } from '../../contract/agent-links.ts'
import type { SiteConfig } from '../../contract/site-config'
import { aiCatalog } from './ai-catalog.ts'
import { robotsTxt, sitemapXml } from './crawler-files.ts'
import { llmsFullTxt, llmsTxt } from './llms-txt.ts'
import { mcpServerCard } from './mcp-server-card.ts'
import type { SiteHost } from './site-host.ts'
import { webManifest } from './web-manifest.ts'

/** Every text file generated from the site config, by its path under dist/ (and on the site). */
export function agentFiles(
  config: SiteConfig,
  host: SiteHost = 'server',
): { fileName: string; source: string }[] {
  return [
    { fileName: 'llms.txt', source: llmsTxt(config, host) },
    { fileName: 'llms-full.txt', source: llmsFullTxt(config, host) },
    // The home page as Markdown (its <link rel="alternate">, and '/' for Accept: text/markdown): the
    // same text as llms-full.txt, which is the whole page in Markdown, so the two cannot drift.
    { fileName: HOME_MARKDOWN_PATH.slice(1), source: llmsFullTxt(config, host) },
    { fileName: '.well-known/ai-catalog.json', source: aiCatalog(config, host) },
    { fileName: 'robots.txt', source: robotsTxt(config) },
    { fileName: 'sitemap.xml', source: sitemapXml() },
    { fileName: 'site.webmanifest', source: webManifest(config) },
    // /mcp's card, beside the server that answers there: a static host has neither.
    ...(host === 'server' ? [{ fileName: 'mcp/server-card', source: mcpServerCard(config) }] : []),
  ]
}
