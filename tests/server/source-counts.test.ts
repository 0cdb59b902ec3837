import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { sourcesReport } from '../../owner/sources/sources-report'
import type { Logger } from '../../server/boot/log'
import type { Database } from '../../server/db/database'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { SourceCounter } from '../../server/http/sources/source-counter'
import { sharedPostgresUrl, stopBackends } from '../support/backends'

/**
 * The counting itself, in this process, on a real database with a clock of the test's own: what a
 * visit is, where it came from, visitors once, GPC, the daily salt and its deletion, the cap, two
 * servers on one database, and a write that fails. The same code behind real servers and a
 * browser: tests/server/sources-http.test.ts and tests/e2e/sources.spec.ts.
 */

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'
const OTHER_BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:131.0) Gecko/20100101 Firefox/131.0'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
// Days after the database's own today: a salt is never created for a day already over.
const DAY_ONE = Date.UTC(2030, 0, 15, 12)
const DAY_TWO = Date.UTC(2030, 0, 16, 0, 0, 30)

const quiet: Logger = { info: () => {}, error: () => {} }
const opened: OpenedDatabase[] = []

async function freshDatabase(): Promise<Database> {
  const database = await openDatabase({ databaseUrl: await sharedPostgresUrl(), dataDir: '' })
  opened.push(database)
  return database.db
}

afterAll(async () => {
  for (const database of opened) await database.close()
  await stopBackends()
})

interface Clock {
  now: number
}

/** A server's counting: the counter behind a page route and a signup route, on its own clock. */
async function server(db: Database, clock: Clock, maxKeysPerDay?: number) {
  const counter = new SourceCounter({
    db,
    log: quiet,
    trustProxyHeader: 'x-forwarded-for',
    siteOrigins: () => ['https://lab.example.com'],
    flushMs: 60_000,
    maxKeysPerDay,
    now: () => clock.now,
  })
  await counter.start()
  const app = new Hono()
  app.on(['GET', 'HEAD'], '*', (c) => {
    const status = c.req.path !== '/' ? 404 : c.req.header('if-none-match') ? 304 : 200
    counter.countVisit(c, status)
    return c.body(null, status)
  })
  app.post('/signup', (c) => {
    counter.countSignups(c, 1)
    return c.body(null, 201)
  })
  return { counter, app }
}

type Visit = {
  path?: string
  ua?: string | null
  from?: string
  referer?: string
  headers?: Record<string, string>
}

function headersOf(visit: Visit): Record<string, string> {
  const headers: Record<string, string> = { 'x-forwarded-for': visit.from ?? '203.0.113.1', ...visit.headers }
  if (visit.ua !== null) headers['user-agent'] = visit.ua ?? BROWSER
  if (visit.referer) headers.referer = visit.referer
  return headers
}

async function visit(app: Hono, visit: Visit = {}, method = 'GET'): Promise<void> {
  const response = await app.request(visit.path ?? '/', { method, headers: headersOf(visit) })
  expect(response.headers.get('set-cookie')).toBeNull()
}

/** The report's counts per source, without the campaigns. */
async function counts(db: Database) {
  const report = await sourcesReport(db, 'all')
  return Object.fromEntries(
    report.map(({ source, visits, visitors, signups }) => [source, { visits, visitors, signups }]),
  )
}

describe('counting visits by source', () => {
  it('counts page loads by utm_source, else the referring site, else direct; not bots, HEAD, prefetches or other pages', async () => {
    const db = await freshDatabase()
    const clock = { now: DAY_ONE }
    const { counter, app } = await server(db, clock)
    await visit(app, { path: '/?utm_source=HackerNews&utm_medium=social&utm_campaign=launch' })
    await visit(app, { path: '/?utm_source=hackernews', from: '203.0.113.2' })
    await visit(app, { referer: 'https://www.linkedin.com/feed/', from: '203.0.113.3' })
    await visit(app, { referer: 'https://lab.example.com/?from=itself', from: '203.0.113.4' })
    await visit(app, { from: '203.0.113.5' })
    await visit(app, { from: '203.0.113.6', headers: { 'if-none-match': '"cached"' } })
    // None of these is a person looking at the page.
    await visit(app, { ua: GOOGLEBOT, path: '/?utm_source=hackernews' })
    await visit(app, { ua: null, path: '/?utm_source=hackernews' })
    await visit(app, { path: '/?utm_source=hackernews', headers: { 'sec-purpose': 'prefetch;prerender' } })
    await visit(app, { path: '/?utm_source=hackernews', headers: { purpose: 'prefetch' } })
    await visit(app, { path: '/?utm_source=hackernews' }, 'HEAD')
    await visit(app, { path: '/nowhere?utm_source=hackernews' })
    await visit(app, { path: '/?waitlist=submitted' })
    await counter.flush()
    expect(await counts(db)).toEqual({
      hackernews: { visits: 2, visitors: 2, signups: 0 },
      'linkedin.com': { visits: 1, visitors: 1, signups: 0 },
      direct: { visits: 3, visitors: 3, signups: 0 },
    })
    const hackernews = (await sourcesReport(db, 'all')).find((row) => row.source === 'hackernews')
    expect(hackernews?.campaigns).toEqual([
      { medium: '', campaign: '', visits: 1, visitors: 1, signups: 0 },
      { medium: 'social', campaign: 'launch', visits: 1, visitors: 1, signups: 0 },
    ])
    await counter.stop()
  })
})
