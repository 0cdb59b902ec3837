import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { siteConfig } from '../../contract/site-config'
import { freshDataDir } from '../../harness/data-dir'
import { startTestServer, type TestServer } from '../../harness/test-server'
import packageJson from '../../package.json' with { type: 'json' }
import { buildIfStale } from '../../server/boot/build-if-stale'
import { ConformanceTester } from '../support/ard/ard.js'

/**
 * The files that let agents and crawlers find the lab, as the real server sends them: each with its
 * own content type, every address made absolute with SITE_URL, the catalog valid for the same ARD
 * validator Lighthouse runs, and the form declared as a WebMCP tool in the prerendered HTML.
 */
const SITE = 'https://lab.example.com'
let server: TestServer

beforeAll(async () => {
  await buildIfStale(() => {})
  // A trailing slash, as operators often write it; the files must not end up with '//'.
  server = await startTestServer({ env: { SITE_URL: `${SITE}/`, LOG_LEVEL: 'error' } })
})
afterAll(async () => {
  await server?.cleanup()
})

async function get(path: string) {
  const response = await fetch(`${server.url}${path}`)
  const body = Buffer.from(await response.arrayBuffer())
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    cors: response.headers.get('access-control-allow-origin'),
    body,
    text: body.toString('utf8'),
  }
}

function validateCatalog(json: string) {
  const tester = new ConformanceTester()
  const valid = tester.validate_manifest(json, 'ai-catalog.json')
  return { valid, errors: tester.errors, warnings: tester.warnings }
}

describe('agent and crawler files', () => {
  it('serves llms.txt: an H1 with the lab name, a summary, and Markdown links to sections, careers and hiring', async () => {
    const { status, type, text } = await get('/llms.txt')
    expect(status).toBe(200)
    expect(type).toBe('text/plain; charset=utf-8')
    expect(text.split('\n')[0]).toBe(`# ${siteConfig.labName}`)
    expect(text).toMatch(/^> .{80,}$/m)
    const links = [...text.matchAll(/\[([^\]]+)\]\(([^)\s]+)\)/g)].map((match) => match[2])
    expect(links).toEqual(
      expect.arrayContaining([
        `${SITE}/#about`,
        `${SITE}/#join-us`,
        siteConfig.careersUrl,
        `mailto:${siteConfig.hiringEmail}`,
        `${SITE}/llms-full.txt`,
        `${SITE}/.well-known/ai-catalog.json`,
      ]),
    )
    expect(text).toContain(`\`${requestAccessTool.name}\``)
    expect(text).toContain(`connect to the remote MCP server at \`${SITE}/mcp\``)
    expect(text).not.toContain('__SITE_URL__')
  })

  it('tells agents the optional answers the tools take, by id, with the choices and limits the server checks', async () => {
    const { text } = await get('/llms.txt')
    expect(text).toContain(
      '`role` (one of “Research”, “Engineering”, “Product”, “Founder or executive”, “Other”), ' +
        '`organisation` (“Organisation”, up to 100 characters) and `use_case` (“What would you use it for?”, up to 500 characters)',
    )
    expect(text).toContain('They are kept with a new entry only.')
  })

  it('tells agents the truth about the HTTP path: POST / with email answers 303 naming the outcome', async () => {
    expect((await get('/llms.txt')).text).toContain(`\`POST ${SITE}/\` with the form field \`email\``)
    const post = (email: string) =>
      fetch(`${server.url}/`, {
        method: 'POST',
        body: new URLSearchParams({ email }),
        redirect: 'manual',
      }).then((response) => [response.status, response.headers.get('location')])
    const email = `llms-agent.${process.pid}.${Date.now()}@example.com`
    expect(await post(email)).toEqual([303, '/?waitlist=submitted'])
    expect(await post(email.toUpperCase())).toEqual([303, '/?waitlist=already_registered'])
  })

  it('serves llms-full.txt with every section of the page', async () => {
    const { status, type, text } = await get('/llms-full.txt')
    expect(status).toBe(200)
    expect(type).toBe('text/plain; charset=utf-8')
    expect(text.split('\n')[0]).toBe(`# ${siteConfig.labName}`)
    for (const heading of ['## About', '## For AI agents', '## Join us']) expect(text).toContain(heading)
    for (const words of [siteConfig.pitch, siteConfig.team, siteConfig.backing, siteConfig.hiringEmail]) {
      expect(text).toContain(words)
    }
  })

  it('serves /.well-known/ai-catalog.json as application/ai-catalog+json, valid for the ARD validator Lighthouse ships', async () => {
    const { status, type, text } = await get('/.well-known/ai-catalog.json')
    expect(status).toBe(200)
    expect(type).toBe('application/ai-catalog+json')
    expect(validateCatalog(text)).toEqual({ valid: true, errors: [], warnings: [] })
    const catalog = JSON.parse(text)
    // llms.txt, which tells of the page's WebMCP tool; no entry claims a type it is not.
    const guide = catalog.entries.find((entry: { url?: string }) => entry.url === `${SITE}/llms.txt`)
    expect(guide).toMatchObject({
      capabilities: [requestAccessTool.name],
      tags: expect.arrayContaining(['webmcp']),
    })
    expect(catalog.entries.filter((entry: { data?: unknown }) => entry.data !== undefined)).toEqual([])
  })

  it('lists the remote MCP server by the URL of its server card, which names /mcp', async () => {
    const { text } = await get('/.well-known/ai-catalog.json')
    const cards = JSON.parse(text).entries.filter(
      (entry: { type: string }) => entry.type === 'application/mcp-server-card+json',
    )
    expect(cards).toEqual([
      expect.objectContaining({
        identifier: `urn:air:${siteConfig.publisherId}:mcp:waitlist`,
        capabilities: [requestAccessTool.name],
        url: `${SITE}/mcp/server-card`,
      }),
    ])
    const card = await get('/mcp/server-card')
    expect(card.status).toBe(200)
    expect(card.type).toBe('application/mcp-server-card+json')
    expect(JSON.parse(card.text)).toMatchObject({
      title: `${siteConfig.labName} private beta access`,
      version: packageJson.version,
      remotes: [{ type: 'streamable-http', url: `${SITE}/mcp` }],
    })
    // A catalog whose MCP entry also carried the card inline would break ARD's value-or-reference rule.
    const broken = JSON.parse(text)
    const entry = broken.entries.find(
      (candidate: { identifier: string }) => candidate.identifier === cards[0].identifier,
    )
    entry.data = JSON.parse(card.text)
    expect(validateCatalog(JSON.stringify(broken)).valid).toBe(false)
  })

  it('lets agents and registries on any origin read the catalog and llms files, and nothing else', async () => {
    for (const path of [
      '/.well-known/ai-catalog.json',
      '/llms.txt',
      '/llms-full.txt',
      '/index.md',
      '/mcp/server-card',
    ]) {
      expect([path, (await get(path)).cors]).toEqual([path, '*'])
    }
    for (const path of ['/', '/robots.txt', '/no-such-page'])
      expect([path, (await get(path)).cors]).toEqual([path, null])
  })

  it('sends / with no Origin-Trial header while WEBMCP_ORIGIN_TRIAL_TOKEN is unset', async () => {
    const response = await fetch(`${server.url}/`)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('origin-trial')).toBeNull()
    expect(await response.text()).not.toContain('origin-trial')
  })

  it('uses a validator that rejects a broken catalog (so the check above can fail)', () => {
    const broken = JSON.stringify({
      specVersion: '1.0',
      entries: [{ identifier: 'lab', displayName: 'x', type: 'y' }],
    })
    const result = validateCatalog(broken)
    expect(result.valid).toBe(false)
    expect(result.errors.length).toBeGreaterThan(0)
  })

  it('serves robots.txt with a sitemap pointer and only directives Lighthouse accepts', async () => {
    const { status, type, text } = await get('/robots.txt')
    expect(status).toBe(200)
    expect(type).toBe('text/plain; charset=utf-8')
    expect(text).toContain(`Sitemap: ${SITE}/sitemap.xml`)
    expect(text).toMatch(/^User-agent: \*$/m)
    expect(text).not.toMatch(/^Disallow: \/$/m)
    const directives = text
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'))
      .map((line) => line.slice(0, line.indexOf(':')).toLowerCase())
    // The directives Lighthouse 13.5's robots.txt audit accepts that this file uses
    // (core/audits/seo/robots-txt.js, DIRECTIVE_SAFELIST); `content-usage` is not among them.
    for (const directive of directives)
      expect(['user-agent', 'allow', 'disallow', 'sitemap', 'content-signal']).toContain(directive)
  })

  it('states the lab’s AI-use policy from the site config as a Content-Signal line for every crawler', async () => {
    const { text } = await get('/robots.txt')
    const { search, aiInput, aiTrain } = siteConfig.contentSignals
    const word = (allowed: boolean) => (allowed ? 'yes' : 'no')
    const line = `Content-Signal: search=${word(search)}, ai-input=${word(aiInput)}, ai-train=${word(aiTrain)}`
    expect(line).toBe('Content-Signal: search=yes, ai-input=yes, ai-train=no')
    // In the group of `User-agent: *`, before its first blank line.
    const group = text.slice(text.indexOf('User-agent: *'), text.indexOf('\n\n'))
    expect(group.split('\n')).toContain(line)
    expect(text).not.toMatch(/^Content-Usage:/im)
  })

  it('serves sitemap.xml listing the home page', async () => {
    const { status, type, text } = await get('/sitemap.xml')
    expect(status).toBe(200)
    expect(type).toBe('application/xml; charset=utf-8')
    expect(text).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
    expect(text).toContain(`<loc>${SITE}/</loc>`)
  })

  it('serves the web manifest, and every icon it names as an image', async () => {
    const { status, type, text } = await get('/site.webmanifest')
    expect(status).toBe(200)
    expect(type).toBe('application/manifest+json; charset=utf-8')
    const manifest = JSON.parse(text)
    expect(manifest).toMatchObject({
      name: siteConfig.labName,
      start_url: '/',
      theme_color: siteConfig.themeColor,
    })
    for (const icon of manifest.icons as { src: string; type: string }[]) {
      const file = await get(icon.src)
      expect([icon.src, file.status, file.type]).toEqual([icon.src, 200, icon.type])
    }
    for (const [path, contentType] of [
      ['/favicon.ico', 'image/x-icon'],
      ['/favicon.svg', 'image/svg+xml'],
      ['/apple-touch-icon.png', 'image/png'],
    ]) {
      const file = await get(path as string)
      expect([path, file.status, file.type]).toEqual([path, 200, contentType])
    }
  })

  it('serves the 1200×630 PNG link preview', async () => {
    const { status, type, body } = await get(siteConfig.ogImage.src)
    expect(status).toBe(200)
    expect(type).toBe('image/png')
    expect(body.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
    expect([body.readUInt32BE(16), body.readUInt32BE(20)]).toEqual([1200, 630])
  })

  it('keeps unknown paths real 404s, dotted and text ones included', async () => {
    for (const path of [
      '/llms.txt/more',
      '/.well-known/agent-card.json',
      '/.well-known/',
      '/humans.txt',
      '/sitemap2.xml',
    ]) {
      const { status, type } = await get(path)
      expect([path, status, type]).toEqual([path, 404, 'text/html; charset=utf-8'])
    }
  })
})

describe('the prerendered home page', () => {
  let html = ''
  beforeAll(async () => {
    html = (await get('/')).text
  })
  const attribute = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1]

  it('declares the access-request form as a WebMCP tool, with a named and described e-mail field', () => {
    const form = /<form\b[^>]*>/.exec(html)?.[0] ?? ''
    expect(attribute(form, 'toolname')).toBe(requestAccessTool.name)
    expect(attribute(form, 'tooldescription')).toBe(requestAccessTool.description.replaceAll("'", '&#x27;'))
    const input = /<input\b[^>]*type="email"[^>]*>/.exec(html)?.[0] ?? ''
    expect(attribute(input, 'name')).toBe('email')
    expect(attribute(input, 'toolparamdescription')).toBe(requestAccessTool.emailDescription)
  })

  it('has a description, canonical URL, Open Graph and Twitter tags, all absolute with SITE_URL', () => {
    expect(html).toContain(`<meta name="description" content="${siteConfig.description}">`)
    expect(html).toContain(`<link rel="canonical" href="${SITE}/">`)
    expect(html).toContain(`<meta property="og:url" content="${SITE}/">`)
    expect(html).toContain(`<meta property="og:image" content="${SITE}${siteConfig.ogImage.src}">`)
    expect(html).toContain('<meta property="og:image:width" content="1200">')
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image">')
    expect(html).toContain(`<meta name="twitter:image" content="${SITE}${siteConfig.ogImage.src}">`)
    expect(html).toContain('<link rel="manifest" href="/site.webmanifest">')
    expect(html).toContain(
      '<link rel="ai-catalog" href="/.well-known/ai-catalog.json" type="application/ai-catalog+json">',
    )
    expect(html).toContain('<link rel="describedby" href="/llms.txt">')
    expect(html).toContain('<link rel="alternate" type="text/markdown" href="/index.md">')
    expect(html).not.toContain('__SITE_URL__')
  })

  it('carries JSON-LD for the Organization with its hiring contact and careers page', () => {
    const json = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}'
    expect(JSON.parse(json)).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: siteConfig.labName,
      url: `${SITE}/`,
      contactPoint: { contactType: 'recruiting', email: siteConfig.hiringEmail, url: siteConfig.careersUrl },
    })
  })

  it('keeps the 404 page out of search results and free of a canonical link', async () => {
    const { status, text } = await get('/no-such-page')
    expect(status).toBe(404)
    expect(text).toContain('<meta name="robots" content="noindex">')
    expect(text).not.toContain('rel="canonical"')
  })
})

describe('SITE_URL', () => {
  it('refuses an address the files could not carry as it is, naming the variable', async () => {
    const data = await freshDataDir()
    try {
      await expect(
        startTestServer({ dataDir: data.dir, env: { SITE_URL: 'https://lab.example.com/?ref=1' } }),
      ).rejects.toThrow(/SITE_URL: must be a plain address/)
    } finally {
      await data.cleanup()
    }
  })
})
