import { createHash } from 'node:crypto'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { SITE_URL_PLACEHOLDER } from '../../contract/site-url'
import { normalizeSiteUrl } from '../boot/normalize-site-url'
import { answerPages } from './answer-pages'
import type { StaticFile, StaticSite } from './static-site'

function withSiteUrl(file: StaticFile, siteUrl: string): StaticFile {
  if (!file.body.includes(SITE_URL_PLACEHOLDER)) return file
  const body = Buffer.from(file.body.toString('utf8').replaceAll(SITE_URL_PLACEHOLDER, siteUrl))
  return {
    ...file,
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    brotli:
      file.brotli &&
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    gzip: file.gzip && gzipSync(body, { level: 9 }),
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
