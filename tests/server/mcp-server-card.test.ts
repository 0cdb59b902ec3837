import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { MCP_PROTOCOL_VERSIONS } from '../../contract/agent-tool'
import { siteConfig } from '../../contract/site-config'
import packageJson from '../../package.json' with { type: 'json' }
import { fileServer } from '../support/file-server'
import { modernEnvelope, modernHeaders, postMcp } from '../support/mcp-raw'

/**
 * /mcp's server card as an agent finds it: from the catalog's entry, at `/mcp/server-card`, with
 * the media type, CORS, caching and revalidation the MCP server-card extension asks for, and
 * contents that agree with what the server says once connected.
 */
const SITE = 'https://lab.example.com'
const CARD_TYPE = 'application/mcp-server-card+json'
// The site is built once for the run, before any file (tests/setup/global-setup.ts).
const live = fileServer({ env: { SITE_URL: SITE, LOG_LEVEL: 'error' } })

const getCard = (headers: Record<string, string> = {}) =>
  fetch(`${live.server.url}/mcp/server-card`, { headers: { Accept: CARD_TYPE, ...headers } })

describe('GET /mcp/server-card', () => {
  it('is the card, as application/mcp-server-card+json, for any origin, cacheable, with an ETag', async () => {
    const response = await getCard({ Origin: 'https://agent.example' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(CARD_TYPE)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag')
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600')
    expect(response.headers.get('etag')).toMatch(/^"[\w-]{10,}"$/)
    expect(await response.json()).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: `${siteConfig.publisherId.split('.').reverse().join('.')}/waitlist`,
      version: packageJson.version,
      title: `${siteConfig.labName} private beta access`,
      description: expect.any(String),
      websiteUrl: `${SITE}/`,
      icons: [
        { src: `${SITE}/icon-512.png`, mimeType: 'image/png', sizes: ['512x512'] },
        { src: `${SITE}/icon-192.png`, mimeType: 'image/png', sizes: ['192x192'] },
        { src: `${SITE}/favicon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] },
      ],
      remotes: [
        {
          type: 'streamable-http',
          url: `${SITE}/mcp`,
          supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
        },
      ],
    })
  })

  it('keeps to the v1 card schema: the name, the description, each URL', async () => {
    const card = (await (await getCard()).json()) as Record<string, unknown> & {
      name: string
      description: string
      icons: { src: string }[]
      remotes: { url: string }[]
    }
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/)
    expect(card.description.length).toBeGreaterThan(0)
    expect(card.description.length).toBeLessThanOrEqual(100)
    expect(String(card.title).length).toBeLessThanOrEqual(100)
    for (const url of [
      card.websiteUrl,
      ...card.icons.map((icon) => icon.src),
      ...card.remotes.map((r) => r.url),
    ]) {
      expect(String(url)).toMatch(/^https?:\/\/[^\s]+$/)
    }
    // No tools: they stay behind tools/list, as the extension asks.
    expect(Object.keys(card).sort()).toEqual(
      ['$schema', 'description', 'icons', 'name', 'remotes', 'title', 'version', 'websiteUrl'].sort(),
    )
    // Every icon it names is served.
    for (const icon of card.icons) {
      const path = new URL(icon.src).pathname
      const served = await fetch(`${live.server.url}${path}`)
      await served.arrayBuffer()
      expect([path, served.status]).toEqual([path, 200])
    }
  })

  it('answers 304 with no body to If-None-Match with its ETag, and 200 to another', async () => {
    const etag = (await getCard()).headers.get('etag') ?? ''
    const again = await getCard({ 'If-None-Match': etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    expect(again.headers.get('access-control-allow-origin')).toBe('*')
    const stale = await getCard({ 'If-None-Match': '"not-this-one"' })
    expect(stale.status).toBe(200)
    await stale.arrayBuffer()
  })

  it("answers a browser's preflight for a revalidating GET", async () => {
    const preflight = await fetch(`${live.server.url}/mcp/server-card`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://agent.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'if-none-match',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET')
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type,If-None-Match')
  })

  it('agrees with the server it describes: its name, version and protocol revisions', async () => {
    const card = (await (await getCard()).json()) as {
      version: string
      remotes: { supportedProtocolVersions: string[] }[]
    }
    const versions = card.remotes[0]?.supportedProtocolVersions ?? []
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      postMcp(live.server.url, body, headers)
    const discover = await post(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernEnvelope('card-test') } },
      modernHeaders('server/discover'),
    )
    const modern = discover.body.result?.supportedVersions as string[]
    // The revisions it lists are the modern ones server/discover offers, then the 2025-era ones.
    expect(versions).toEqual([...modern, ...SUPPORTED_PROTOCOL_VERSIONS])
    expect(discover.body.result?._meta).toMatchObject({
      'io.modelcontextprotocol/serverInfo': { version: card.version },
    })
    // And each 2025-era revision it lists is the one an initialize gets back.
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const initialized = await post({
        jsonrpc: '2.0',
        id: 2,
        method: 'initialize',
        params: {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: 'card-test', version: '1' },
        },
      })
      expect([version, initialized.body.result?.protocolVersion]).toEqual([version, version])
    }
  })
})
