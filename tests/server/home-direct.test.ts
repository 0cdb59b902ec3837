import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'

/**
 * '/' as browsers load it is answered on Node's response without the app (ADR 101); '/?' (a query,
 * nothing in it) still goes through the app's route to the same page. Both must answer alike:
 * status, every header but Date, and the bytes; and count the same visits.
 */
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'
const TRIAL_TOKEN = 'A1b2C3d4E5f6G7h8I9j0K+lM/nO0pQ=='
const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

interface Answer {
  status: number
  /** Raw names as sent, to tell which path wrote them. */
  rawNames: string[]
  headers: Record<string, string>
  body: Buffer
}

function fetchRaw(server: TestServer, method: string, path: string, headers: Record<string, string>) {
  return new Promise<Answer>((resolve, reject) => {
    const { port } = new URL(server.url)
    const outgoing = request({ host: '127.0.0.1', port, path, method, headers }, (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () => {
        const { date: _date, ...rest } = incoming.headers
        const flat = Object.fromEntries(Object.entries(rest).map(([name, value]) => [name, String(value)]))
        const rawNames = incoming.rawHeaders.filter((_, index) => index % 2 === 0)
        resolve({ status: incoming.statusCode ?? 0, rawNames, headers: flat, body: Buffer.concat(chunks) })
      })
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    env: {
      TRUST_PROXY_HEADER: 'x-forwarded-for',
      COUNT_SOURCES_FLUSH_MS: '100',
      WEBMCP_ORIGIN_TRIAL_TOKEN: TRIAL_TOKEN,
    },
  })
})

afterAll(async () => {
  await server?.cleanup()
})

describe('the home page answered without the app', () => {
  it('answers as the app does: status, headers and bytes, each encoding, HEAD and 304', async () => {
    const { headers: plain } = await fetchRaw(server, 'GET', '/', { 'accept-encoding': 'br' })
    const etag = plain.etag ?? ''
    const cases: [string, Record<string, string>][] = []
    for (const method of ['GET', 'HEAD'])
      for (const encoding of ['br, gzip', 'gzip, deflate', ''])
        for (const validator of ['', etag, `W/${etag}, "other"`, '"other"'])
          cases.push([
            method,
            {
              accept: HTML_ACCEPT,
              ...(encoding && { 'accept-encoding': encoding }),
              ...(validator && { 'if-none-match': validator }),
            },
          ])
    const statuses = new Set<number>()
    for (const [method, headers] of cases) {
      const direct = await fetchRaw(server, method, '/', headers)
      statuses.add(direct.status)
      const app = await fetchRaw(server, method, '/?', headers)
      const label = `${method} ${JSON.stringify(headers)}`
      expect(direct.status, label).toBe(app.status)
      expect(direct.headers, label).toEqual(app.headers)
      expect(direct.body.equals(app.body), label).toBe(true)
      // The app's home route sets its headers on a Response, which its adapter writes in lower case;
      // the direct path writes them as home-page.ts spells them: so each answer shows who wrote it.
      expect(direct.rawNames, label).toContain('ETag')
      expect(app.rawNames, label).toContain('etag')
    }
    expect([...statuses].sort()).toEqual([200, 304])
    const page = await fetchRaw(server, 'GET', '/', { 'accept-encoding': 'br' })
    expect(page.status).toBe(200)
    expect(page.headers['origin-trial']).toBe(TRIAL_TOKEN)
    expect(page.headers['content-security-policy']).toContain("default-src 'self'")
    expect(server.output()).toMatch(/GET \/ 304 \d+\.\dms/)
  })

  it('leaves Markdown, other hosts and other paths to the app', async () => {
    const markdown = await fetchRaw(server, 'GET', '/', { accept: 'text/markdown' })
    expect(markdown.headers['content-type']).toMatch(/^text\/markdown/)
    expect(markdown.rawNames).toContain('etag')
    const upper = await fetchRaw(server, 'GET', '/', { host: 'EXAMPLE.org', accept: HTML_ACCEPT })
    expect(upper.status).toBe(200)
    expect(upper.rawNames).toContain('etag')
    // The app's route for other methods: its 404 page.
    expect((await fetchRaw(server, 'OPTIONS', '/', {})).status).toBe(404)
  })

  it('counts the visits the app would: browsers only, no prefetch or HEAD, one visitor per address', async () => {
    const browser = (address: string, more: Record<string, string> = {}) => ({
      'user-agent': BROWSER,
      accept: HTML_ACCEPT,
      'x-forwarded-for': `203.0.113.9, ${address}`,
      ...more,
    })
    const before = await visits()
    for (const [method, path, headers] of [
      ['GET', '/', browser('198.51.100.1')],
      ['GET', '/', browser('198.51.100.1')],
      ['GET', '/', browser('198.51.100.2')],
      ['GET', '/?', browser('198.51.100.3')],
      ['GET', '/', browser('198.51.100.4', { 'sec-purpose': 'prefetch' })],
      ['HEAD', '/', browser('198.51.100.5')],
      ['GET', '/', { accept: HTML_ACCEPT, 'x-forwarded-for': '198.51.100.6' }],
    ] as const) {
      expect((await fetchRaw(server, method, path, headers)).status).toBe(200)
    }
    await expect.poll(async () => (await visits()).visits - before.visits, { timeout: 10_000 }).toBe(4)
    expect((await visits()).visitors - before.visitors).toBe(3)
  })
})

async function visits(): Promise<{ visits: number; visitors: number }> {
  const result = await runCli(server.env, 'sources', '--json')
  expect(result.code).toBe(0)
  const rows = JSON.parse(result.stdout) as { source: string; visits: number; visitors: number }[]
  const direct = rows.find((row) => row.source === 'direct')
  return { visits: direct?.visits ?? 0, visitors: direct?.visitors ?? 0 }
}
