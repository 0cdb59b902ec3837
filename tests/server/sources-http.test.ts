import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { type SourceCounts, sourcesReport } from '../../server/analytics/sources-report'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'

/**
 * Visits and signups by source through two real servers on one DATABASE_URL, as a load balancer
 * would spread one audience over them: the page's route, the REST insert, the no-script form and
 * /mcp; the counts summed in the database and read by `npm run waitlist -- sources`. No cookie in
 * any answer, and no address or User-Agent in the logs or the database.
 */
const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'
const ADDRESSES = ['198.51.100.23', '198.51.100.24', '198.51.100.25']

let one: TestServer
let two: TestServer
let database: OpenedDatabase
const answers: Response[] = []

beforeAll(async () => {
  const url = await sharedPostgresUrl()
  const env = { DATABASE_URL: url, TRUST_PROXY_HEADER: 'x-forwarded-for', COUNT_SOURCES_FLUSH_MS: '100' }
  one = await startTestServer({ env })
  two = await startTestServer({ env })
  database = await openDatabase({ databaseUrl: url, dataDir: '' })
})

afterAll(async () => {
  await database?.close()
  await Promise.all([one?.cleanup(), two?.cleanup()])
  await stopBackends()
})

/** A page visit as a browser makes it: answered 200, its answer kept for the no-cookie check. */
async function visit(server: TestServer, path: string, headers: Record<string, string>): Promise<void> {
  const response = await fetch(`${server.url}${path}`, { headers })
  expect(response.status).toBe(200)
  answers.push(response)
}

const browser = (address: string, more: Record<string, string> = {}) => ({
  'user-agent': BROWSER,
  'x-forwarded-for': address,
  ...more,
})

/** The report once both servers have written what they counted (every 100 ms here). */
async function settledReport(expectedSignups: number): Promise<SourceCounts[]> {
  for (let attempt = 0; ; attempt++) {
    const report = await sourcesReport(database.db, 30)
    if (report.reduce((sum, row) => sum + row.signups, 0) >= expectedSignups || attempt > 100) return report
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function mcpSignup(server: TestServer, email: string): Promise<void> {
  const client = new Client({ name: 'claude-ai', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
  const result = await client.callTool({ name: 'request_beta_access', arguments: { email } })
  expect(result.isError).toBeFalsy()
  await client.close()
}

describe('visits and signups by source, on two servers sharing one database', () => {
  it('counts them on either server, sums them, and sets no cookie', async () => {
    const [first = '', second = '', third = ''] = ADDRESSES
    // One visitor through both servers, then a second one: two visitors, three visits.
    await visit(one, '/?utm_source=HN&utm_medium=social', browser(first))
    await visit(two, '/?utm_source=hn&utm_medium=social', browser(first))
    await visit(two, '/?utm_source=hn&utm_medium=social', browser(second))
    await visit(one, '/', browser(third, { referer: 'https://www.linkedin.com/' }))
    await visit(two, '/', browser(third, { referer: 'https://www.linkedin.com/', 'sec-gpc': '1' }))
    // Not visits: a crawler, a prefetch.
    await visit(one, '/?utm_source=hn', { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' })
    await visit(two, '/?utm_source=hn', browser(first, { 'sec-purpose': 'prefetch' }))

    const page = { referer: `${one.url}/?utm_source=hn&utm_medium=social` }
    const insert = await postWaitlist(one, { email: 'hn.reader@example.com' }, browser(first, page))
    expect(insert.status).toBe(201)
    answers.push(insert)
    // Already listed, or the lab's own key: not a new signup.
    answers.push(await postWaitlist(two, { email: 'HN.Reader@example.com' }, browser(first, page)))
    answers.push(await postWaitlist({ url: one.url, anonKey: one.serviceKey }, { email: 'own@example.com' }))
    const form = await fetch(`${two.url}/`, {
      method: 'POST',
      headers: browser(third, { referer: `${two.url}/?utm_source=newsletter&utm_campaign=november` }),
      body: new URLSearchParams({ email: 'reader@example.com' }),
      redirect: 'manual',
    })
    expect(form.headers.get('location')).toBe('/?waitlist=submitted')
    answers.push(form)
    await mcpSignup(two, 'agent.user@example.com')
    // A script on the page's address, as curl sends it: a signup with no counted page visit.
    const script = await postWaitlist(
      one,
      { email: 'script@example.com' },
      { 'user-agent': 'curl/8.14.1', ...page },
    )
    expect(script.status).toBe(201)

    const report = await settledReport(4)
    expect(
      report.map(({ source, visits, visitors, signups }) => ({ source, visits, visitors, signups })),
    ).toEqual([
      { source: 'hn', visits: 3, visitors: 2, signups: 1 },
      { source: '(api)', visits: 0, visitors: 0, signups: 1 },
      { source: 'mcp', visits: 0, visitors: 0, signups: 1 },
      { source: 'newsletter', visits: 0, visitors: 0, signups: 1 },
      { source: 'linkedin.com', visits: 2, visitors: 1, signups: 0 },
    ])
    expect(report.find((row) => row.source === 'mcp')?.campaigns).toMatchObject([{ medium: 'claude-ai' }])
    expect(answers.filter((answer) => answer.headers.has('set-cookie'))).toEqual([])
  })

  it('prints them with `sources`, and keeps no address or User-Agent in the logs or the database', async () => {
    const json = await runCli({ DATABASE_URL: one.env.DATABASE_URL ?? '' }, 'sources', '--json')
    expect(json.code).toBe(0)
    const rows = JSON.parse(json.stdout) as { source: string; visits: number; signups: number }[]
    expect(rows[0]).toMatchObject({
      source: 'hn',
      kind: 'page',
      visits: 3,
      visitors: 2,
      signups: 1,
      // Signups per visit, as the funnel's: 1 of 3 visits (not of the 2 visitors).
      conversion: 1 / 3,
    })
    expect(rows[1]).toMatchObject({ source: '(api)', kind: 'no-visit', signups: 1, conversion: null })
    // The founder's table: (api) apart, no conversion for it, and the total's from page signups only.
    const text = await runCli({ DATABASE_URL: one.env.DATABASE_URL ?? '' }, 'sources')
    expect(text.stdout).toMatch(/^\(api\) +0 +0 +1 +–$/m)
    expect(text.stdout).toMatch(/^total +5 +3 +4 +40\.0%$/m)
    expect(text.stdout).toContain('(api) and mcp are signups with no counted page visit')

    const logs = one.output() + two.output()
    expect(logs).toContain('GET / 200')
    const tables = await database.db.query<{ row: string }>(
      `select t::text as row from private.source_counts t
       union all select t::text from private.visitor_salts t
       union all select t::text from public.waitlist t`,
    )
    const stored = tables.map((table) => table.row).join('\n')
    expect(stored).toContain('hn')
    for (const secret of [...ADDRESSES, 'Chrome/141', 'Windows NT', 'Googlebot']) {
      expect(logs).not.toContain(secret)
      expect(stored).not.toContain(secret)
    }
  })
})
