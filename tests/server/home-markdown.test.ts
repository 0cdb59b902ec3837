import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { siteConfig } from '../../contract/site-config'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { loadApiKeys } from '../../server/auth/api-keys'
import { createLogger } from '../../server/base/log'
import { DIST_DIR } from '../../server/base/paths'
import { buildIfStale } from '../../server/boot/build-if-stale'
import { loadServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import { createApp } from '../../server/http/app'
import { fillInSiteUrl } from '../../server/http/site-url'
import { loadStaticSite, type StaticSite } from '../../server/http/static-site'

/**
 * '/' for people and for agents (ADR 051): the built page, or the same page in Markdown when the
 * client asks for text/markdown and does not prefer HTML; both labelled for caches, both linking to
 * llms.txt, the Markdown and the catalog. In-process over the real build; the env wiring over HTTP.
 */
const SITE = 'https://lab.example.com'
/** What Chromium 156 sends when it navigates to a page, unchanged. */
const CHROMIUM_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,' +
  'application/signed-exchange;v=b3;q=0.7'
const FIREFOX_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const LINK =
  '</llms.txt>; rel="describedby", </index.md>; rel="alternate"; type="text/markdown", ' +
  '</.well-known/ai-catalog.json>; rel="ai-catalog"'

let site: StaticSite
let markdown: string

async function appWith(webmcpOriginTrialToken?: string): Promise<Hono> {
  const keys = await loadApiKeys({
    jwtSecret: 'x'.repeat(40),
    dataDir: '/nonexistent',
    databaseUrl: undefined,
  })
  const db = {} as Database
  const log = createLogger('silent')
  return createApp({ db, keys, schema: new Map(), site, log, webmcpOriginTrialToken })
}

beforeAll(async () => {
  await buildIfStale(() => {})
  site = await loadStaticSite(DIST_DIR, 'anon-key')
  fillInSiteUrl(site, SITE)
  markdown = (await readFile(join(DIST_DIR, 'index.md'), 'utf8')).replaceAll('__SITE_URL__', SITE)
})

async function get(app: Hono, accept?: string, headers: Record<string, string> = {}) {
  const response = await app.request('/', { headers: { ...(accept ? { Accept: accept } : {}), ...headers } })
  return { response, body: Buffer.from(await response.arrayBuffer()) }
}

describe('GET / by Accept', () => {
  it('gives a browser the prerendered HTML, byte for byte, for its own Accept header', async () => {
    const app = await appWith()
    for (const accept of [CHROMIUM_ACCEPT, FIREFOX_ACCEPT, '*/*', 'text/*', 'application/json', undefined]) {
      const { response, body } = await get(app, accept)
      expect([accept, response.status, response.headers.get('content-type')]).toEqual([
        accept,
        200,
        'text/html; charset=utf-8',
      ])
      expect(body.equals(site.home.body), String(accept)).toBe(true)
      expect(response.headers.get('etag')).toBe(site.home.etag)
    }
  })

  it('gives an agent that asks for Markdown the page in Markdown, from the site config', async () => {
    const app = await appWith()
    for (const accept of [
      'text/markdown',
      'text/markdown, text/html;q=0.9',
      'text/markdown;q=0.9, text/plain;q=0.5',
      'text/html, text/markdown',
      'TEXT/MARKDOWN',
      'text/markdown;q=0.5, */*;q=0.1',
    ]) {
      const { response, body } = await get(app, accept)
      expect([accept, response.status, response.headers.get('content-type')]).toEqual([
        accept,
        200,
        'text/markdown; charset=utf-8',
      ])
      expect(body.toString('utf8')).toBe(markdown)
      // The lab's AI-use policy travels with the Markdown, as robots.txt states it.
      expect(response.headers.get('content-signal')).toBe('search=yes, ai-input=yes, ai-train=no')
    }
    expect(markdown.split('\n')[0]).toBe(`# ${siteConfig.labName}`)
    for (const words of [siteConfig.pitch, siteConfig.team, siteConfig.backing, siteConfig.careersUrl])
      expect(markdown).toContain(words)
    expect(markdown).toContain(`${SITE}/`)
  })

  it('keeps HTML when the client weighs it above Markdown, or refuses Markdown', async () => {
    const app = await appWith()
    for (const accept of [
      'text/html, text/markdown;q=0.9',
      'text/markdown;q=0.5, */*',
      'text/markdown;q=0.5, text/*;q=0.8',
      'text/markdown;q=0, text/html',
      'text/markdown;q=0',
    ]) {
      const { response } = await get(app, accept)
      expect([accept, response.headers.get('content-type')]).toEqual([accept, 'text/html; charset=utf-8'])
      expect(response.headers.get('content-signal')).toBeNull()
    }
  })

  it('tells caches that / varies by Accept, with a distinct ETag per representation', async () => {
    const app = await appWith()
    const html = await get(app, CHROMIUM_ACCEPT)
    const md = await get(app, 'text/markdown')
    for (const { response } of [html, md]) {
      expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding')
      expect(response.headers.get('cache-control')).toBe('no-cache')
    }
    const htmlTag = html.response.headers.get('etag') ?? ''
    const mdTag = md.response.headers.get('etag') ?? ''
    expect(mdTag).toMatch(/^"[\w-]{22}"$/)
    expect(mdTag).not.toBe(htmlTag)
    // A validator of one representation never revalidates the other.
    expect((await get(app, 'text/markdown', { 'If-None-Match': htmlTag })).response.status).toBe(200)
    expect((await get(app, CHROMIUM_ACCEPT, { 'If-None-Match': mdTag })).response.status).toBe(200)
    const notModified = await get(app, 'text/markdown', { 'If-None-Match': mdTag })
    expect(notModified.response.status).toBe(304)
    expect(notModified.response.headers.get('vary')).toBe('Accept, Accept-Encoding')
  })

  it('compresses the Markdown as it does the page', async () => {
    const app = await appWith()
    const { response, body } = await get(app, 'text/markdown', { 'Accept-Encoding': 'br, gzip' })
    expect(response.headers.get('content-encoding')).toBe('br')
    expect(body.length).toBeLessThan(Buffer.byteLength(markdown))
  })

  it('links every representation of / to llms.txt, its Markdown and the agent catalog', async () => {
    const app = await appWith()
    for (const accept of [CHROMIUM_ACCEPT, 'text/markdown']) {
      const { response } = await get(app, accept)
      expect(response.headers.get('link')).toBe(LINK)
    }
    const head = await app.request('/', { method: 'HEAD', headers: { Accept: 'text/markdown' } })
    expect(head.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(head.headers.get('link')).toBe(LINK)
    expect(await head.text()).toBe('')
  })

  it('carries the two llms.txt v2 links in the page head, and serves the Markdown at their address', async () => {
    const app = await appWith()
    const html = site.home.body.toString('utf8')
    expect(html).toContain('<link rel="describedby" href="/llms.txt">')
    expect(html).toContain('<link rel="alternate" type="text/markdown" href="/index.md">')
    const alternate = await app.request('/index.md')
    expect(alternate.status).toBe(200)
    expect(alternate.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(await alternate.text()).toBe(markdown)
  })
})

describe('WEBMCP_ORIGIN_TRIAL_TOKEN', () => {
  const TOKEN = 'A1b2C3d4E5f6G7h8I9j0K+lM/nO0pQ=='

  it('is refused at start-up unless it looks like a token (it goes into a header as it is)', () => {
    expect(loadServerEnv({ WEBMCP_ORIGIN_TRIAL_TOKEN: TOKEN }).WEBMCP_ORIGIN_TRIAL_TOKEN).toBe(TOKEN)
    expect(loadServerEnv({ WEBMCP_ORIGIN_TRIAL_TOKEN: '' }).WEBMCP_ORIGIN_TRIAL_TOKEN).toBeUndefined()
    expect(() => loadServerEnv({ WEBMCP_ORIGIN_TRIAL_TOKEN: 'abc\r\nSet-Cookie: x=1' })).toThrow(
      /WEBMCP_ORIGIN_TRIAL_TOKEN: must be the token/,
    )
  })

  it('is sent with the page as an Origin-Trial header when set, and not otherwise', async () => {
    const withToken = await appWith(TOKEN)
    expect((await get(withToken, CHROMIUM_ACCEPT)).response.headers.get('origin-trial')).toBe(TOKEN)
    // Nothing else carries it: the Markdown has no script to run, the files no page.
    expect((await get(withToken, 'text/markdown')).response.headers.get('origin-trial')).toBeNull()
    expect((await withToken.request('/llms.txt')).headers.get('origin-trial')).toBeNull()
    const without = await appWith()
    expect((await get(without, CHROMIUM_ACCEPT)).response.headers.get('origin-trial')).toBeNull()
  })

  describe('on the real server', () => {
    let server: TestServer
    beforeAll(async () => {
      server = await startTestServer({ env: { WEBMCP_ORIGIN_TRIAL_TOKEN: TOKEN, LOG_LEVEL: 'error' } })
    })
    afterAll(async () => {
      await server?.cleanup()
    })

    it('reads it from the environment and sends it with /, beside the Link header', async () => {
      const response = await fetch(`${server.url}/`, { headers: { Accept: CHROMIUM_ACCEPT } })
      expect(response.headers.get('origin-trial')).toBe(TOKEN)
      expect(response.headers.get('link')).toBe(LINK)
      expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding')
      const markdownAnswer = await fetch(`${server.url}/`, { headers: { Accept: 'text/markdown' } })
      expect(markdownAnswer.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
      expect(await markdownAnswer.text()).toContain(`[Home page](${server.url}/)`)
    })
  })
})
