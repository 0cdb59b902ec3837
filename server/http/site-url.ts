import { createHash } from 'node:crypto'
import { SITE_URL_PLACEHOLDER } from '../../contract/site-url'
import { normalizeSiteUrl } from '../base/normalize-site-url'
import { answerPages } from './answer-pages'
import { compressed, type StaticFile } from './static-file'
import type { StaticSite } from './static-site'

function withSiteUrl(file: StaticFile, siteUrl: string): StaticFile {
  if (!file.body.includes(SITE_URL_PLACEHOLDER)) return file
  const body = Buffer.from(file.body.toString('utf8').replaceAll(SITE_URL_PLACEHOLDER, siteUrl))
  return {
    ...file,
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    // Every file carrying the placeholder is text, left uncompressed until now (static-site.ts).
    ...compressed(body),
  }
}

/**
 * Writes the public address into every page and text file that carries the build's placeholder
 * (canonical link, previews, JSON-LD, llms.txt, the catalog, robots.txt, sitemap.xml).
 * Synchronous on purpose: called right after the server starts listening (the address may only be
 * known then, with PORT=0), it finishes before the first request is read.
 */
export function fillInSiteUrl(site: StaticSite, rawSiteUrl: string): void {
  const siteUrl = normalizeSiteUrl(rawSiteUrl)
  site.home = withSiteUrl(site.home, siteUrl)
  site.notFound = withSiteUrl(site.notFound, siteUrl)
  if (site.answers) site.answers = answerPages(site.home, site.confirmSignups)
  site.files = new Map([...site.files].map(([path, file]) => [path, withSiteUrl(file, siteUrl)]))
}
