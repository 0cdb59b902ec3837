import { absoluteUrl } from '../../contract/site-url.ts'

/**
 * robots.txt: everything public may be crawled; the API is not a page. The catalog is announced by
 * <link rel="ai-catalog"> and its well-known path rather than an `Agentmap:` line, which
 * Lighthouse's robots.txt audit rejects as an unknown directive.
 */
export function robotsTxt(): string {
  return [
    'User-agent: *',
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
