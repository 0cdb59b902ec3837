import AxeBuilder from '@axe-core/playwright'
import { type Browser, test as base, expect, type Locator, type Page } from '@playwright/test'
import { startTestServer, type TestServer } from '../../harness/test-server'

export interface ConsoleLog {
  /** console.error and console.warning messages, and uncaught page errors, in order. */
  problems: string[]
  /** Marks messages matching `pattern` as expected (the spec's own logs); returns how many matched. */
  expect(pattern: RegExp): number
}

/**
 * `server`: one real server per worker, on a free port with its own data dir. Every spec's test
 * comes from here, the studio's too (which start servers of their own and never ask for this one):
 * Playwright gives each set of worker fixtures its own workers, and a second set cost worker
 * restarts and a second phase that ran after the first.
 */
export const workerTest = base.extend<object, { server: TestServer }>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const server = await startTestServer()
      await use(server)
      await server.cleanup()
    },
    { scope: 'worker' },
  ],
})

/**
 * The site's tests: `baseURL` is the worker's server.
 * `consoleLog`: any console error or warning a test did not expect fails it (React's hydration
 * warnings among them), as Epic Stack's test setup does.
 */
export const test = workerTest.extend<{ consoleLog: ConsoleLog }>({
  baseURL: async ({ server }, use) => {
    await use(server.url)
  },
  // With JavaScript on, every navigation waits until React has hydrated the page (`html[data-hydrated]`,
  // src/app.tsx): a click before that is the no-script form's POST, a path tested on its own with
  // JavaScript off. It also means a hydration warning is seen before the test ends.
  page: async ({ page, javaScriptEnabled }, use) => {
    if (javaScriptEnabled !== false) {
      const goto = page.goto.bind(page)
      page.goto = async (url, options) => {
        const response = await goto(url, options)
        await page.locator('html[data-hydrated]').waitFor({ state: 'attached' })
        return response
      }
    }
    await use(page)
  },
  consoleLog: [
    async ({ page }, use) => {
      const problems = watchConsole(page)
      const expected: RegExp[] = []
      await use({
        problems,
        expect(pattern) {
          expected.push(pattern)
          return problems.filter((problem) => pattern.test(problem)).length
        },
      })
      const unexpected = problems.filter((problem) => !expected.some((pattern) => pattern.test(problem)))
      expect(unexpected, 'unexpected console errors or warnings').toEqual([])
    },
    { auto: true },
  ],
})

export { expect }

/**
 * The page's console errors and warnings and its uncaught errors, in order: a test that opens pages
 * of its own (the studio's) fails on any of them, as `consoleLog` does.
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  return problems
}

/**
 * axe on `page`, run in the page itself: its default opens a blank page beside it to gather each
 * frame's results, which our pages (no iframes) do not need, and which doubled each scan: 43 scans
 * took 65 s of the two workers' time, 37 s this way (npm test, 2026-11-29). The rules are the same.
 */
export function axeOn(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode(true)
}

export async function expectNoAxeViolations(page: Page) {
  const results = await axeOn(page).analyze()
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
}

/** The site's background in each colour scheme: a page whose stylesheet loaded under the CSP shows it. */
export const SCHEME_BACKGROUNDS = [
  ['light', 'rgb(255, 255, 255)'],
  ['dark', 'rgb(9, 13, 19)'],
] as const

/**
 * A page the server renders alone (the unsubscribe page, the person's own page) in both schemes: its
 * heading, `more` (what the page has of its own), the site's background, no axe violation, and not
 * one console message of any kind. In a context of its own: the fixture's page waits for the home
 * page's hydration, which these pages never have.
 */
export async function expectServerPageLook(
  browser: Browser,
  url: string,
  heading: string,
  more?: (page: Page) => Promise<void>,
) {
  const context = await browser.newContext()
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => problems.push(`${message.type()}: ${message.text()}`))
  try {
    for (const [colorScheme, background] of SCHEME_BACKGROUNDS) {
      await page.emulateMedia({ colorScheme })
      expect((await page.goto(url))?.status()).toBe(200)
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
      await more?.(page)
      const body = await page.locator('body').evaluate((element) => getComputedStyle(element).backgroundColor)
      expect(body, `the stylesheet loaded under the CSP (${colorScheme})`).toBe(background)
      await expectNoAxeViolations(page)
    }
    expect(problems).toEqual([])
  } finally {
    await context.close()
  }
}

let counter = 0
/** A unique, valid address per call, so tests never collide on the unique constraint. */
export function uniqueEmail(prefix = 'visitor'): string {
  counter += 1
  return `${prefix}.${process.pid}.${Date.now().toString(36)}.${counter}@example.com`
}

/** The toast region (Radix renders each toast's text twice: visibly, and for screen readers). */
export function toasts(page: Page): Locator {
  return page.getByRole('region', { name: /Notifications/ })
}

type PageTools = Record<string, { execute(input: object): Promise<unknown> }>

/**
 * A stand-in model context, as an agent-enabled browser offers one (Chromium has none without its
 * flag): the tools the page registers are kept by name for callPageTool. webmcp.spec.ts has the full one.
 */
export async function offerModelContext(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const tools: PageTools = {}
    Object.assign(window, { agentTools: tools })
    Object.defineProperty(navigator, 'modelContext', {
      configurable: true,
      value: {
        registerTool(tool: { name: string; execute(input: object): Promise<unknown> }) {
          tools[tool.name] = tool
          return Promise.resolve()
        },
      },
    })
  })
}

/** The page's WebMCP tool `name` called as an agent calls it, once the page has registered it. */
export async function callPageTool(page: Page, name: string, input: object): Promise<unknown> {
  await page.waitForFunction(
    (tool) => Boolean((window as unknown as { agentTools: PageTools }).agentTools[tool]),
    name,
  )
  return page.evaluate(
    ([tool, given]) => (window as unknown as { agentTools: PageTools }).agentTools[tool]?.execute(given),
    [name, input] as const,
  )
}

/** Ticks `choice` in the studio's filter group whose name starts with `group` (Source, Status…). */
export function tickFilter(list: Locator, group: string, choice: string): Promise<void> {
  return list
    .getByRole('group', { name: new RegExp(`^${group}`) })
    .getByRole('checkbox', { name: choice })
    .check()
}
