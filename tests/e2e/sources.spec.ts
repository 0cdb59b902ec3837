import { type Browser, type BrowserContext, expect, type Page } from '@playwright/test'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { type SourceCounts, sourcesReport } from '../../server/analytics/sources-report'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { axeOn, workerTest as test, toasts } from './fixtures'

/**
 * Visits and signups by source as people make them, in Chromium: a newsletter's tagged link, a
 * post on another site with an untagged link, a reader with scripts off, a crawler and a
 * prefetch; then the studio's Sources panel. Headless Chromium calls itself HeadlessChrome, which
 * is a bot by its User-Agent, so the people here browse with a desktop Chrome's.
 */
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'

test.describe.configure({ mode: 'serial' })

let server: TestServer
let database: OpenedDatabase
const contexts: BrowserContext[] = []
const cookiesSet: string[] = []

test.beforeAll(async () => {
  server = await startTestServer({
    env: { TRUST_PROXY_HEADER: 'x-forwarded-for', COUNT_SOURCES_FLUSH_MS: '100' },
  })
  database = await openDatabase({ dataDir: server.dataDir, besideServer: true })
})

test.afterAll(async () => {
  for (const context of contexts) await context.close()
  await database?.close()
  await server?.cleanup()
})

/** A person: their own address (as their proxy says) and browser, every answer checked for cookies. */
async function person(
  browser: Browser,
  address: string,
  options: { userAgent?: string; javaScriptEnabled?: boolean } = {},
) {
  const context = await browser.newContext({
    baseURL: server.url,
    userAgent: options.userAgent ?? CHROME,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    extraHTTPHeaders: { 'x-forwarded-for': address },
  })
  contexts.push(context)
  const page = await context.newPage()
  page.on('response', async (response) => {
    const cookie = await response.headerValue('set-cookie')
    if (cookie) cookiesSet.push(`${response.url()}: ${cookie}`)
  })
  return { context, page }
}

async function signUp(page: Page, email: string): Promise<void> {
  await page.getByPlaceholder('Enter your email').fill(email)
  await page.getByRole('button', { name: 'Request Access' }).click()
  await expect(toasts(page).getByText('Request submitted!')).toBeVisible()
}

const hydrated = (page: Page) => page.locator('html[data-hydrated]').waitFor({ state: 'attached' })

/** Each source's visits, visitors and signups, once the server has written `signups` of them. */
async function countsOnceWritten(signups: number) {
  let report: SourceCounts[] = []
  await expect
    .poll(async () => {
      report = await sourcesReport(database.db, 30)
      return report.reduce((sum, row) => sum + row.signups, 0)
    })
    .toBe(signups)
  return Object.fromEntries(report.map((row) => [row.source, [row.visits, row.visitors, row.signups]]))
}

test('counts visits by source and signups by the page they were made on, with no cookie', async ({
  browser,
}) => {
  // Not people, and before the signups so that their counts would be written first: a crawler, and
  // a prefetch the browser makes on its own.
  const crawler = await person(browser, '203.0.113.13', {
    userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1)',
  })
  await crawler.page.goto('/?utm_source=newsletter')
  const reader = await person(browser, '203.0.113.10')
  await reader.page.goto('/?utm_source=Newsletter&utm_medium=email&utm_campaign=november')
  await hydrated(reader.page)
  const prefetched = reader.page.waitForResponse((response) =>
    response.url().includes('utm_source=prefetched'),
  )
  await reader.page.evaluate(() => {
    const link = Object.assign(document.createElement('link'), {
      rel: 'prefetch',
      href: '/?utm_source=prefetched',
    })
    document.head.append(link)
  })
  expect((await prefetched).request().headers()['sec-purpose']).toContain('prefetch')

  // Then three people at once: the reader signs up; a reader from a post whose link had no tags
  // (the visit is that site's, the signup direct); one with scripts off, whose form lands on a
  // page that is not a second visit.
  const fromPost = async () => {
    const poster = await person(browser, '203.0.113.11')
    await poster.page.goto('/', { referer: 'https://news.ycombinator.com/item?id=46000001' })
    await hydrated(poster.page)
    await signUp(poster.page, 'hn.reader@example.com')
    return poster
  }
  const withoutScripts = async () => {
    const noScript = await person(browser, '203.0.113.12', { javaScriptEnabled: false })
    await noScript.page.goto('/?utm_source=linkedin')
    await noScript.page.getByPlaceholder('Enter your email').fill('linkedin.reader@example.com')
    await noScript.page.getByRole('button', { name: 'Request Access' }).click()
    await expect(noScript.page).toHaveURL(/waitlist=submitted/)
    return noScript
  }
  const [, poster, noScript] = await Promise.all([
    signUp(reader.page, 'newsletter.reader@example.com'),
    fromPost(),
    withoutScripts(),
  ])

  expect(await countsOnceWritten(3)).toEqual({
    newsletter: [1, 1, 1],
    linkedin: [1, 1, 1],
    direct: [0, 0, 1],
    'news.ycombinator.com': [1, 1, 0],
  })
  for (const { context } of [reader, poster, noScript, crawler]) expect(await context.cookies()).toEqual([])
  expect(cookiesSet).toEqual([])
})

test('the studio shows the sources and the visits, legible on a phone in either scheme', async ({ page }) => {
  let studio: StudioProcess | undefined
  try {
    studio = await startStudioProcess(server.env)
    const api = (days: string) =>
      fetch(`${studio?.origin}/api/sources?days=${days}`, {
        headers: { Authorization: `Bearer ${studio?.token}`, 'Sec-Fetch-Site': 'same-origin' },
      })
    expect((await api('7')).status).toBe(400)
    expect(((await (await api('all')).json()) as { sources: unknown[] }).sources).toHaveLength(4)
    await page.setViewportSize({ width: 390, height: 844 })
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      await page.goto(studio.url)
      const panel = page.getByRole('region', { name: /Sources/ })
      const source = (name: string) => panel.getByRole('listitem').filter({ hasText: new RegExp(`^${name}`) })
      await expect(source('news.ycombinator.com')).toContainText('visitors1')
      await expect(source('newsletter')).toContainText('conversion100.0%')
      await expect(panel.getByText('email · november')).toBeVisible()
      await expect(
        page.getByRole('img', { name: /Visits, beside them on a scale of their own: 3 in all/ }),
      ).toBeVisible()
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0)
      // The chart and the panel (the studio's own tests scan the whole page): every rule once, then
      // the one a scheme changes, contrast.
      const axe = axeOn(page).include('section:has(#chart-heading)').include('#sources')
      const scan = await (colorScheme === 'light' ? axe : axe.withRules(['color-contrast'])).analyze()
      expect(scan.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
    }
  } finally {
    await studio?.stop()
  }
})

test('a link posted as /?ref= counts its visit and its signup as utm_source would', async ({ browser }) => {
  const listener = await person(browser, '203.0.113.14')
  await listener.page.goto('/?ref=Podcast&utm_campaign=episode-12')
  await hydrated(listener.page)
  await signUp(listener.page, 'podcast.listener@example.com')
  const counts = await countsOnceWritten(4)
  expect(counts.podcast).toEqual([1, 1, 1])
  const [entry] = await database.db.query<{ source: string }>(
    `select source from public.waitlist where email = 'podcast.listener@example.com'`,
  )
  expect(entry?.source).toBe('podcast')
  const [campaign] = await database.db.query<{ campaign: string }>(
    `select campaign from private.source_counts where source = 'podcast'`,
  )
  expect(campaign?.campaign).toBe('episode-12')
})
