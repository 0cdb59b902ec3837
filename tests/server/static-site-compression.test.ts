import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { SITE_URL_PLACEHOLDER } from '../../contract/site-url'
import { DIST_DIR } from '../../server/base/paths'
import { buildIfStale } from '../../server/boot/build-if-stale'
import { fillInSiteUrl } from '../../server/http/site-url'
import type { StaticFile } from '../../server/http/static-file'
import { loadStaticSite, type StaticSite } from '../../server/http/static-site'

/**
 * Each file's brotli and gzip copies are compressed once, from its final text (server/http/static-site.ts):
 * a file that names the site's address waits for fillInSiteUrl. Whatever the order, what a browser
 * decodes must be the body itself.
 */
const SITE = 'https://lab.example.com'
const TEXT = /^(text\/|application\/(json|manifest|xml|ai-catalog|mcp)|image\/svg)/

let site: StaticSite
beforeAll(async () => {
  await buildIfStale(() => {})
  site = await loadStaticSite(DIST_DIR, 'anon-key')
  fillInSiteUrl(site, SITE)
})

function everyFile(): [string, StaticFile][] {
  return [
    ['/', site.home],
    ['404', site.notFound],
    ...Object.entries(site.answers ?? {}).map(([result, page]): [string, StaticFile] => [
      `?waitlist=${result}`,
      page,
    ]),
    ...site.files,
  ]
}

describe('the static site, compressed', () => {
  it('decodes to the body exactly, for every compressed copy, the answer pages included', () => {
    let checked = 0
    for (const [path, file] of everyFile()) {
      expect(file.body.includes(SITE_URL_PLACEHOLDER), path).toBe(false)
      if (file.brotli) expect(brotliDecompressSync(file.brotli).equals(file.body), path).toBe(true)
      if (file.gzip) expect(gunzipSync(file.gzip).equals(file.body), path).toBe(true)
      if (file.brotli) checked += 1
    }
    expect(checked).toBeGreaterThanOrEqual(10)
  })

  it('leaves no text file over 256 bytes uncompressed, once the address is filled in', () => {
    const missing = everyFile()
      .filter(([, file]) => TEXT.test(file.contentType) && file.body.length > 256)
      .filter(([, file]) => !file.brotli || !file.gzip)
      .map(([path]) => path)
    expect(missing).toEqual([])
    expect(site.answers?.submitted.brotli).toBeDefined()
  })
})
