import type { SiteConfig } from '../../contract/site-config'
import { aiCatalog } from './ai-catalog.ts'
import { robotsTxt, sitemapXml } from './crawler-files.ts'
import { llmsFullTxt, llmsTxt } from './llms-txt.ts'
import { webManifest } from './web-manifest.ts'

/** Every text file generated from the site config, by its path under dist/ (and on the site). */
export function agentFiles(config: SiteConfig): { fileName: string; source: string }[] {
  return [
    { fileName: 'llms.txt', source: llmsTxt(config) },
    { fileName: 'llms-full.txt', source: llmsFullTxt(config) },
    { fileName: '.well-known/ai-catalog.json', source: aiCatalog(config) },
    { fileName: 'robots.txt', source: robotsTxt() },
    { fileName: 'sitemap.xml', source: sitemapXml() },
    { fileName: 'site.webmanifest', source: webManifest(config) },
  ]
}
