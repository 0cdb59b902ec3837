import { describe, expect, it } from 'vitest'
import { runCli } from '../../harness/waitlist-cli'
import { fileServer } from '../support/file-server'

/**
 * '/' as browsers load it, through the one app (ADR 111), where it was once answered beside it:
 * the security headers and the page's own on every form of the answer, each load counted once as
 * a visit and logged once.
 */
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'
const TRIAL_TOKEN = 'A1b2C3d4E5f6G7h8I9j0K+lM/nO0pQ=='
const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

const live = fileServer({
  env: {
    TRUST_PROXY_HEADER: 'x-forwarded-for',
    COUNT_SOURCES_FLUSH_MS: '100',
    WEBMCP_ORIGIN_TRIAL_TOKEN: TRIAL_TOKEN,
  },
})

const load = (method: string, headers: Record<string, string>) =>
  fetch(`${live.server.url}/`, { method, headers: { accept: HTML_ACCEPT, ...headers } })

async function visits(): Promise<{ visits: number; visitors: number }> {
  const result = await runCli(live.server.env, 'sources', '--json')
  expect(result.code).toBe(0)
  const rows = JSON.parse(result.stdout) as { source: string; visits: number; visitors: number }[]
  const direct = rows.find((row) => row.source === 'direct')
  return { visits: direct?.visits ?? 0, visitors: direct?.visitors ?? 0 }
}

/** The access log's lines for '/' with this status. */
const logged = (status: number) =>
  live.server
    .output()
    .split('\n')
    .filter((line) => new RegExp(`\\bGET / ${status} [\\d.]+ms`).test(line)).length

describe('the home page, through the app', () => {
  it('carries the security headers and its own, in each encoding, on 200, 304 and HEAD', async () => {
    const page = await load('GET', { 'accept-encoding': 'br, gzip' })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-encoding')).toBe('br')
    const etag = page.headers.get('etag') ?? ''
    expect(etag).not.toBe('')
    const answers = [
      page,
      await load('GET', { 'accept-encoding': 'gzip' }),
      await load('GET', {}),
      await load('GET', { 'accept-encoding': 'br, gzip', 'if-none-match': etag }),
      await load('HEAD', { 'accept-encoding': 'br, gzip' }),
    ]
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 304, 200])
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'")
      expect(answer.headers.get('x-frame-options')).toBe('DENY')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      expect(answer.headers.get('vary')).toBe('Accept, Accept-Encoding')
      expect(answer.headers.get('link')).toContain('rel="ai-catalog"')
      expect(answer.headers.get('origin-trial')).toBe(TRIAL_TOKEN)
    }
    expect(await answers[4]?.text()).toBe('')
  })

  it('counts each browser load once as a visit, and logs it once', async () => {
    const browser = (address: string) => ({ 'user-agent': BROWSER, 'x-forwarded-for': address })
    const before = { ...(await visits()), lines: logged(200) }
    for (const address of ['198.51.100.1', '198.51.100.1', '198.51.100.2'])
      expect((await load('GET', browser(address))).status).toBe(200)
    await expect.poll(async () => (await visits()).visits - before.visits, { timeout: 10_000 }).toBe(3)
    expect((await visits()).visitors - before.visitors).toBe(2)
    expect(logged(200) - before.lines).toBe(3)
  })
})
