import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'

// The headers a client or a browser acts on; Date and the like differ by nature.
const KEY_HEADERS = [
  'content-type',
  'cache-control',
  'content-security-policy',
  'x-frame-options',
  'location',
  'retry-after',
  'access-control-allow-origin',
]

type Ask = (server: TestServer) => Request

/** What a client sees of one answer, with the server's own address, key and token written as names. */
async function answer(server: TestServer, ask: Ask) {
  const response = await fetch(ask(server), { redirect: 'manual' })
  const named = (text: string) =>
    text
      .replaceAll(server.url, 'URL')
      .replace(/t=[\w-]{20,}/g, 't=TOKEN')
      // The built page's inline-script hashes in the CSP, which no answer of the app's runs.
      .replace(/ 'sha256-[^']+'/g, '')
  // Retry-After counts down the seconds, which pass between the two servers' answers.
  const value = (name: string) => response.headers.get(name)?.replace(/^\d+$/, 'SECONDS') ?? ''
  const headers = KEY_HEADERS.map((name) => `${name}: ${named(value(name))}`)
  return { status: response.status, headers, body: named(await response.text()) }
}

const insert: Ask = ({ url, anonKey }) =>
  new Request(`${url}/rest/v1/waitlist`, {
    method: 'POST',
    headers: { apikey: anonKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'same@example.com' }),
  })
const mailLink =
  (path: string, key: 'unsubscribe' | 'confirm'): Ask =>
  ({ url, secret }) =>
    new Request(`${url}${path}?t=${sealAddress(linkKeys(secret)[key], 'same@example.com')}`)
const form =
  (email: string): Ask =>
  ({ url }) =>
    new Request(`${url}/`, { method: 'POST', body: new URLSearchParams({ email }) })

/** In order: the first insert is the one the later ones repeat, and the form's posts spend the burst. */
const ASKS: [string, Ask][] = [
  ['GET /healthz', ({ url }) => new Request(`${url}/healthz`)],
  ['POST /rest/v1/waitlist', insert],
  ['POST /rest/v1/waitlist again', insert],
  ['GET /unsubscribe', mailLink('/unsubscribe', 'unsubscribe')],
  ['GET /confirm', mailLink('/confirm', 'confirm')],
  ['GET /confirm forged', ({ url }) => new Request(`${url}/confirm?t=forged`)],
  [
    'POST /mcp initialize',
    ({ url }) =>
      new Request(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Origin: url,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'test', version: '1' },
          },
        }),
      }),
  ],
  ...[0, 1, 2, 3].map((i): [string, Ask] => [`POST / (form ${i})`, form(`form.${i}@example.com`)]),
]

/**
 * `npm run dev` is `npm start`'s server with Vite in front of the pages (ADR 061): every path the
 * app has a route for answers the same under both, down to the rate limit.
 */
describe('npm run dev and npm start', () => {
  // One write a minute back: a slow machine's seconds between the two servers' answers refill nothing.
  const env = { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '5' }
  let dev: TestServer
  let start: TestServer
  beforeAll(async () => {
    ;[dev, start] = await Promise.all([
      startTestServer({ dev: true, env, timeout: 90_000 }),
      startTestServer({ bundled: true, env }),
    ])
  }, 120_000)
  afterAll(async () => {
    await Promise.all([dev?.cleanup(), start?.cleanup()])
  })

  it('answer the app’s paths the same', async () => {
    for (const [name, ask] of ASKS) {
      const [underDev, underStart] = [await answer(dev, ask), await answer(start, ask)]
      expect({ name, ...underDev }).toEqual({ name, ...underStart })
    }
    // The limit holds under npm run dev too (no proxy's address shared by every client).
    const later = []
    for (let i = 0; i < 6; i++) later.push((await answer(dev, form(`over.${i}@example.com`))).headers)
    expect(later.at(-1)).toContain('location: /?waitlist=error')
  })

  it('under npm run dev, Vite serves the page with the anon key, and the agent files', async () => {
    const html = await (await fetch(`${dev.url}/`)).text()
    expect(html).toContain(`<meta name="supabase-anon-key" content="${dev.anonKey}"`)
    expect(html).toContain('/@vite/client')
    const card = await fetch(`${dev.url}/mcp/server-card`)
    expect(card.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect(await card.json()).toMatchObject({ remotes: [{ type: 'streamable-http', url: `${dev.url}/mcp` }] })
  })
})
