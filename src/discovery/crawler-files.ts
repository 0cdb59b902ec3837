import { contentSignal } from '../../contract/content-signal.ts'
import type { SiteConfig } from '../../contract/site-config'
import { absoluteUrl } from '../../contract/site-url.ts'

/**
 * robots.txt: everything public may be crawled; the API is not a page; and the lab's AI-use policy
 * as a `Content-Signal` line in the group that applies to every crawler. That directive is in the
 * list Lighthouse 13.5's robots.txt audit accepts; its IETF aipref sibling `Content-Usage`, and an
 * `Agentmap:` line, are not (the catalog is announced by <link rel="ai-catalog"> and a Link header).
 */
export function robotsTxt(config: SiteConfig): string {
  return [
    '# Content-Signal: search = building a search index; ai-input = using the pages as input to an',
    '# AI answer (retrieval, grounding); ai-train = training or fine-tuning AI models.',
    'User-agent: *',
    `Content-Signal: ${contentSignal(config)}`,
    'Allow: /',
    'Disallow: /rest/',
    '',
    `Sitemap: ${absoluteUrl('/sitemap.xml')}`,
    '',
  ].join('\n')
}

/** sitemap.xml: the site has one page. */
export function sitemapXml(): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    `  <url><loc>${absoluteUrl('/')}</loc></url>`,
    '</urlset>',
    '',
  ].join('\n')
}
