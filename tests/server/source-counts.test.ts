import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { sourcesReport } from '../../server/analytics/sources-report'
import type { Logger } from '../../server/base/log'
import type { Database } from '../../server/db/database'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { HttpSourceCounter } from '../../server/http/http-source-counter'
import { utcDay, utcMidnight } from '../support/relative-dates'

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
// Days after the database's own today, taken from today: a salt is never created for a day that
// PostgreSQL's now() has passed, so a day written by hand would stop working once it came.
const DAY_ONE = utcMidnight(2) + 12 * 3_600_000
const DAY_TWO = utcMidnight(3) + 30_000
const [FIRST, SECOND] = [utcDay(0, DAY_ONE), utcDay(0, DAY_TWO)]

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
  const counter = new HttpSourceCounter({
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
    counter.countSignup(counter.sourceOfSignup(c, 'form'))
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
      { medium: '', campaign: '', visits: 1, visitors: 1, signups: 0, conversion: 0 },
      { medium: 'social', campaign: 'launch', visits: 1, visitors: 1, signups: 0, conversion: 0 },
    ])
    await counter.stop()
  })
})

/** Every row of every table of ours, as text: what a dump of the database would show. */
async function everything(db: Database): Promise<string> {
  const tables = await db.query<{ name: string }>(
    `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
      where table_schema in ('public', 'private') and table_type = 'BASE TABLE'`,
  )
  const parts: string[] = []
  for (const { name } of tables) {
    const rows = await db.query<{ row: string }>(`select t::text as row from ${name} t`)
    parts.push(...rows.map((row) => row.row))
  }
  return parts.join('\n')
}

describe('counting visitors', () => {
  it('counts an address and browser once a day, two addresses twice, and a GPC or DNT visit as a visit only', async () => {
    const db = await freshDatabase()
    const { counter, app } = await server(db, { now: DAY_ONE })
    await visit(app, { from: '198.51.100.7' })
    await visit(app, { from: '198.51.100.7' })
    await visit(app, { from: '198.51.100.8' })
    await visit(app, { from: '198.51.100.8', ua: OTHER_BROWSER })
    // One IPv6 host holds a /64, as the rate limiter sees it: one visitor.
    await visit(app, { from: '2001:db8:1:2::10' })
    await visit(app, { from: '2001:db8:1:2::99' })
    await visit(app, { from: '198.51.100.9', headers: { 'sec-gpc': '1' } })
    await visit(app, { from: '198.51.100.10', headers: { dnt: '1' } })
    await counter.flush()
    expect(await counts(db)).toEqual({ direct: { visits: 8, visitors: 4, signups: 0 } })
    await counter.stop()
  })

  it('counts signups by the utm_* tags of the page that sent them, and keeps no address or User-Agent', async () => {
    const db = await freshDatabase()
    const { counter, app } = await server(db, { now: DAY_ONE })
    const signup = (referer?: string) =>
      app.request('/signup', { method: 'POST', headers: headersOf({ referer, from: '192.0.2.44' }) })
    await visit(app, { path: '/?utm_source=Newsletter&utm_campaign=november', from: '192.0.2.44' })
    await signup('https://lab.example.com/?utm_source=Newsletter&utm_campaign=november')
    await signup('http://localhost/?utm_source=newsletter&utm_campaign=november')
    // Came from a link without tags: the visit is the linking site's, the signup direct (no cookie carries it).
    await visit(app, { referer: 'https://news.ycombinator.com/item?id=1', from: '192.0.2.45' })
    await signup('https://lab.example.com/')
    await signup()
    await counter.flush()
    expect(await counts(db)).toEqual({
      newsletter: { visits: 1, visitors: 1, signups: 2 },
      direct: { visits: 0, visitors: 0, signups: 2 },
      'news.ycombinator.com': { visits: 1, visitors: 1, signups: 0 },
    })
    const stored = await everything(db)
    expect(stored).toContain('newsletter')
    for (const secret of ['192.0.2.44', '192.0.2.45', 'Chrome/140', 'X11'])
      expect(stored).not.toContain(secret)
    await counter.stop()
  })
})

describe('a signup’s source, named before its insert', () => {
  it('counts the signup under the name it was given before the insert, and a failed insert not at all', async () => {
    const db = await freshDatabase()
    const { counter, app } = await server(db, { now: DAY_ONE })
    // A door as the signup function will run it: name, insert, then count under that name.
    app.post('/named', (c) => {
      const source = counter.sourceOfSignup(c, 'rest')
      const stored = c.req.query('insert') !== 'fails'
      if (stored) counter.countSignup(source)
      return c.json(source, stored ? 201 : 409)
    })
    const signup = async (ua: string, referer: string, path = '/named') => {
      const response = await app.request(path, { method: 'POST', headers: headersOf({ ua, referer }) })
      return ((await response.json()) as { source: string }).source
    }
    const tagged = 'https://lab.example.com/?utm_source=Newsletter&utm_campaign=november'
    const names = [
      await signup(BROWSER, tagged),
      await signup(BROWSER, 'https://www.partner.example.org/'),
      await signup('curl/8.14.1', tagged),
    ]
    expect(names).toEqual(['newsletter', 'partner.example.org', '(api)'])
    await signup(BROWSER, 'https://failed.example.org/', '/named?insert=fails')
    await counter.flush()
    expect(await counts(db)).toEqual({
      newsletter: { visits: 0, visitors: 0, signups: 1 },
      'partner.example.org': { visits: 0, visitors: 0, signups: 1 },
      '(api)': { visits: 0, visitors: 0, signups: 1 },
    })
    await counter.stop()
  })
})

describe('signups with no counted page visit', () => {
  it('counts signups from scripts, HTTP libraries and headless browsers under (api), not as direct page signups', async () => {
    const db = await freshDatabase()
    const { counter, app } = await server(db, { now: DAY_ONE })
    const signup = (ua: string | null, referer?: string) =>
      app.request('/signup', { method: 'POST', headers: headersOf({ ua, referer, from: '192.0.2.60' }) })
    // One person on the page, who signs up there.
    await visit(app, { from: '192.0.2.61' })
    await signup(BROWSER)
    // What the review saw: ten signups by curl and the like, which never counted as a visit.
    for (const ua of ['curl/8.14.1', 'python-requests/2.32', 'node', null, 'HeadlessChrome/141.0'])
      await signup(ua)
    for (let index = 0; index < 5; index++)
      await signup('Go-http-client/1.1', 'https://lab.example.com/?utm_source=x')
    await counter.flush()
    expect(await counts(db)).toEqual({
      direct: { visits: 1, visitors: 1, signups: 1 },
      '(api)': { visits: 0, visitors: 0, signups: 10 },
    })
    const report = await sourcesReport(db, 'all')
    expect(report.map(({ source, kind, conversion }) => ({ source, kind, conversion }))).toEqual([
      { source: '(api)', kind: 'no-visit', conversion: null },
      { source: 'direct', kind: 'page', conversion: 1 },
    ])
    await counter.stop()
  })
})

describe('several servers on one database, and the days', () => {
  it('sums two servers, counts a visitor seen by both once, and deletes the salt once the day is over', async () => {
    const db = await freshDatabase()
    const clock = { now: DAY_ONE }
    const one = await server(db, clock)
    const two = await server(db, clock)
    await visit(one.app, { from: '192.0.2.1', path: '/?utm_source=x' })
    await visit(two.app, { from: '192.0.2.1', path: '/?utm_source=x' })
    await visit(two.app, { from: '192.0.2.2', path: '/?utm_source=x' })
    await Promise.all([one.counter.flush(), two.counter.flush()])
    expect(await counts(db)).toEqual({ x: { visits: 3, visitors: 2, signups: 0 } })
    const salts = () =>
      db.query<{ day: string }>(`select to_char(day, 'YYYY-MM-DD') as day from private.visitor_salts`)
    expect(await salts()).toEqual([{ day: FIRST }])

    // Thirty seconds past midnight: a new salt, the old one deleted, the same visitor new again.
    clock.now = DAY_TWO
    await Promise.all([one.counter.flush(), two.counter.flush()])
    expect(await salts()).toEqual([{ day: SECOND }])
    await visit(one.app, { from: '192.0.2.1', path: '/?utm_source=x' })
    await visit(two.app, { from: '192.0.2.1', path: '/?utm_source=x' })
    await Promise.all([one.counter.flush(), two.counter.flush()])
    const perDay = () =>
      db.query<{ day: string; visits: string; visitors: string | null; bits: boolean }>(
        `select to_char(day, 'YYYY-MM-DD') as day, visits, visitors, visitor_bits is not null as bits
           from private.source_counts order by day`,
      )
    expect(await perDay()).toEqual([
      { day: FIRST, visits: '3', visitors: null, bits: true },
      { day: SECOND, visits: '2', visitors: null, bits: true },
    ])
    // Ten minutes later the day before is closed: its bits become a number and are erased.
    clock.now = DAY_TWO + 11 * 60_000
    await Promise.all([one.counter.flush(), two.counter.flush()])
    expect(await perDay()).toEqual([
      { day: FIRST, visits: '3', visitors: '2', bits: false },
      { day: SECOND, visits: '2', visitors: null, bits: true },
    ])
    expect(await counts(db)).toEqual({ x: { visits: 5, visitors: 3, signups: 0 } })
    await Promise.all([one.counter.stop(), two.counter.stop()])
  })

  it('holds a day to its cap of distinct sources across servers: the lightest count under (other)', async () => {
    // A cap of 5: five named sources a day, then (other).
    const db = await freshDatabase()
    const clock = { now: DAY_ONE }
    const one = await server(db, clock, 5)
    const two = await server(db, clock, 5)
    for (let index = 0; index < 8; index++) {
      await visit(one.app, { path: `/?utm_source=flood-${index}`, from: `192.0.2.${index}` })
      await visit(two.app, { path: `/?utm_source=other-flood-${index}`, from: `192.0.2.${index + 100}` })
    }
    await one.counter.flush()
    await two.counter.flush()
    // Busier than any row now: it takes the lightest's. One visit more is no busier: (other).
    for (let index = 0; index < 3; index++)
      await visit(one.app, { path: '/?utm_source=busy', from: `192.0.2.${index + 50}` })
    await visit(two.app, { path: '/?utm_source=late', from: '192.0.2.200' })
    await one.counter.flush()
    await two.counter.flush()
    const report = await sourcesReport(db, 'all')
    const named = report.filter((row) => row.source !== '(other)')
    expect(named).toHaveLength(5)
    expect(named.map((row) => row.source)).not.toContain('late')
    expect(report.find((row) => row.source === 'busy')).toMatchObject({ visits: 3, visitors: 3 })
    // Nothing is lost: every visit and visitor is somewhere.
    expect(report.reduce((sum, row) => sum + row.visits, 0)).toBe(20)
    expect(report.reduce((sum, row) => sum + row.visitors, 0)).toBe(20)
    expect(report.find((row) => row.source === '(other)')).toMatchObject({ visits: 13, visitors: 13 })
    await Promise.all([one.counter.stop(), two.counter.stop()])
  })

  it('keeps the counts of a write that failed and writes them with the next', async () => {
    const db = await freshDatabase()
    let failures = 1
    const flaky: Database = {
      ...db,
      query: db.query.bind(db),
      transaction: (fn) =>
        failures-- > 0 ? Promise.reject(new Error('connection lost')) : db.transaction(fn),
    }
    const errors: string[] = []
    const counter = new HttpSourceCounter({
      db: flaky,
      log: { info: () => {}, error: (message) => errors.push(message) },
      siteOrigins: () => [],
      flushMs: 60_000,
      now: () => DAY_ONE,
    })
    await counter.start()
    const app = new Hono().get('/', (c) => {
      counter.countVisit(c, 200)
      return c.body(null, 200)
    })
    await visit(app, { path: '/?utm_source=kept' })
    await counter.flush()
    expect(errors).toEqual(['Source counts could not be written (kept for the next try):'])
    expect(await counts(db)).toEqual({})
    await visit(app, { path: '/?utm_source=kept' })
    await counter.stop()
    expect(await counts(db)).toEqual({ kept: { visits: 2, visitors: 1, signups: 0 } })
  })
})

it('never makes a salt for a day the database thinks is over: its visits count, but not as visitors', async () => {
  const db = await freshDatabase()
  const { counter, app } = await server(db, { now: Date.UTC(2020, 0, 1, 12) })
  await visit(app, { path: '/?utm_source=late' })
  await counter.stop()
  expect(await counts(db)).toEqual({ late: { visits: 1, visitors: 0, signups: 0 } })
  expect(await db.query('select day from private.visitor_salts')).toEqual([])
})

describe('fair counting when a day has more sources than the cap', () => {
  const junk = async (app: Hono, count: number, from = 0) => {
    for (let index = from; index < from + count; index++)
      await visit(app, {
        path: `/?utm_source=junk-${index}`,
        from: `10.${index >> 16}.${(index >> 8) & 255}.${index & 255}`,
      })
  }
  const newsletter = (app: Hono, index: number) =>
    visit(app, { path: '/?utm_source=newsletter&utm_medium=email', from: `192.0.2.${index + 1}` })

  it('keeps a newsletter’s 20 visits in its own row after 5,000 one-visit junk sources the same morning', async () => {
    const db = await freshDatabase()
    const clock = { now: DAY_ONE }
    const { counter, app } = await server(db, clock)
    // The junk first (one second of work), then the newsletter's readers through the morning.
    for (let batch = 0; batch < 10; batch++) {
      await junk(app, 500, batch * 500)
      await counter.flush()
    }
    for (let index = 0; index < 20; index++) {
      await newsletter(app, index)
      if (index % 4 === 3) await counter.flush()
    }
    await counter.flush()
    const report = await sourcesReport(db, 'all')
    const row = report.find((source) => source.source === 'newsletter')
    const other = report.find((source) => source.source === '(other)')
    console.log(
      `newsletter after 5,000 junk sources: ${JSON.stringify(row ?? 'no row')}; (other): ${other?.visits} visits`,
    )
    // At most the first visit, seen while every row was as light as it, went to (other) with the junk.
    expect(row?.visits).toBeGreaterThanOrEqual(19)
    expect(row?.visitors).toBeGreaterThanOrEqual(19)
    expect(report.filter((source) => source.source !== '(other)')).toHaveLength(200)
    expect(report.reduce((sum, source) => sum + source.visits, 0)).toBe(5020)
    await counter.stop()
  })

  it('holds the cap and loses nothing when two servers take over rows at the same moment', async () => {
    const db = await freshDatabase()
    const clock = { now: DAY_ONE }
    const one = await server(db, clock, 20)
    const two = await server(db, clock, 20)
    for (let round = 0; round < 4; round++) {
      await junk(one.app, 30, round * 100)
      await junk(two.app, 30, round * 100 + 50)
      // Busier sources on both, written at once: each write decides under the day's lock.
      for (let index = 0; index < 3; index++) {
        await visit(one.app, { path: `/?utm_source=busy-one-${round}`, from: `192.0.2.${index}` })
        await visit(two.app, { path: `/?utm_source=busy-two-${round}`, from: `192.0.2.${index}` })
      }
      await Promise.all([one.counter.flush(), two.counter.flush()])
    }
    const report = await sourcesReport(db, 'all')
    expect(report.filter((row) => row.source !== '(other)')).toHaveLength(20)
    expect(report.reduce((sum, row) => sum + row.visits, 0)).toBe(4 * (60 + 6))
    for (let round = 0; round < 4; round++)
      for (const name of [`busy-one-${round}`, `busy-two-${round}`])
        expect(
          report.find((row) => row.source === name),
          name,
        ).toMatchObject({ visits: 3 })
    await Promise.all([one.counter.stop(), two.counter.stop()])
  })

  it('keeps a newsletter’s row whole when 5,000 junk sources come after it, on another server', async () => {
    const db = await freshDatabase()
    const clock = { now: DAY_ONE }
    const one = await server(db, clock)
    const two = await server(db, clock)
    for (let index = 0; index < 20; index++) {
      await newsletter(two.app, index)
      if (index % 5 === 4) await two.counter.flush()
    }
    for (let batch = 0; batch < 10; batch++) {
      await junk(one.app, 500, batch * 500)
      await one.counter.flush()
    }
    // A junk source seen again later (two visits) is still lighter than the newsletter.
    await junk(two.app, 1, 4999)
    await Promise.all([one.counter.flush(), two.counter.flush()])
    const report = await sourcesReport(db, 'all')
    expect(report.find((source) => source.source === 'newsletter')).toMatchObject({
      visits: 20,
      visitors: 20,
    })
    expect(report.filter((source) => source.source !== '(other)')).toHaveLength(200)
    expect(report.reduce((sum, source) => sum + source.visits, 0)).toBe(5021)
    // (other) holds only one-visit sources: every named row is at least as heavy as any of them.
    const other = report.find((source) => source.source === '(other)')
    expect(other?.visits).toBeGreaterThan(4000)
    await Promise.all([one.counter.stop(), two.counter.stop()])
  })
})
