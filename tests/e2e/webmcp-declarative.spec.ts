import type { Browser, Page } from '@playwright/test'
import { requestAccessTool } from '../../contract/agent-tool'
import { CHROMIUM_ARGS, findChromium } from '../../harness/chromium-path'
import { expect, test as siteTest, toasts, uniqueEmail } from './fixtures'

/**
 * The real thing: Chromium's own WebMCP (behind a flag in Chromium 156) reads the form's declarative
 * attributes, and an agent's call fills the form, submits it and gets the page's answer through
 * SubmitEvent.respondWith, the same submit path a person's click takes.
 *
 * The flag is this file's alone (webmcp.spec.ts checks the page without it), so each test launches
 * a browser with it. A worker-wide launch option would give the file workers of its own, which ran
 * after every other test, one core idle.
 */
const test = siteTest.extend<{ webmcpBrowser: Browser }>({
  webmcpBrowser: async ({ playwright }, use) => {
    const args = [...CHROMIUM_ARGS, '--enable-features=WebMCP']
    const browser = await playwright.chromium.launch({ executablePath: findChromium(), args })
    await use(browser)
    await browser.close()
  },
  context: async ({ webmcpBrowser, baseURL }, use) => {
    const context = await webmcpBrowser.newContext({ baseURL, reducedMotion: 'reduce' })
    await use(context)
    await context.close()
  },
})

test.describe('in Chromium with WebMCP switched on', () => {
  test('the form is the tool: an agent call fills it, runs the page submit (Submitting...) and gets the structured result', async ({
    page,
  }) => {
    // Record the page's imperative registration: it marks hydration, and the browser must refuse it
    // (the declarative form already holds the name) without the page logging an error.
    await page.addInitScript(() => {
      const context = (document as unknown as { modelContext?: object }).modelContext
      if (!context) return
      const proto = Object.getPrototypeOf(context) as { registerTool: (...args: unknown[]) => Promise<void> }
      const original = proto.registerTool
      proto.registerTool = function (this: unknown, ...args: unknown[]) {
        const attempt = original.apply(this, args)
        attempt.then(
          () => document.documentElement.setAttribute('data-register', 'accepted'),
          (error: Error) => document.documentElement.setAttribute('data-register', error.message),
        )
        return attempt
      }
    })
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route('**/rest/v1/waitlist', async (route) => {
      await held
      await route.continue()
    })
    await page.goto('/')
    await expect(page.locator('html')).toHaveAttribute('data-register', 'Duplicate tool name')
    const email = uniqueEmail('declared')
    const names = await page.evaluate(
      async ([name, value]) => {
        type Context = {
          getTools(): Promise<{ name: string }[]>
          executeTool(tool: object, input: object): Promise<string | null>
        }
        const context = (document as unknown as { modelContext: Context }).modelContext
        const tools = await context.getTools()
        const tool = tools.find((candidate) => candidate.name === name)
        if (!tool) throw new Error(`no ${name} among ${tools.map((t) => t.name)}`)
        ;(window as unknown as { answer: Promise<string | null> }).answer = context.executeTool(tool, {
          email: value,
        })
        return tools.map((t) => t.name)
      },
      [requestAccessTool.name, email] as const,
    )
    expect(names).toEqual([requestAccessTool.name])

    // The browser filled the form and submitted it; the page's own submit path is running.
    await expect(page.getByRole('button', { name: 'Submitting...' })).toBeDisabled()
    const input = page.getByPlaceholder('Enter your email')
    await expect(input).toHaveValue(email)
    // Chrome cancels a declarative call when a field of its form is disabled mid-call, so here the input stays enabled.
    await expect(input).toBeEnabled()

    release()
    const answer = await page.evaluate(() => (window as unknown as { answer: Promise<string | null> }).answer)
    expect(JSON.parse(answer ?? 'null')).toEqual({
      status: 'submitted',
      message: "Request submitted! We'll be in touch soon about beta access.",
      next_step: 'wait_for_invitation',
    })
    await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
    await expect(page.getByPlaceholder('Enter your email')).toHaveValue('')
  })
})

/** Before hydration: loads '/' with the page's scripts held back, and calls the form's tool as an agent. */
async function callBeforeHydration(page: Page, email: string) {
  // frame.goto: the fixture's page.goto would wait for hydration, which never comes here.
  await page.mainFrame().goto('/', { waitUntil: 'domcontentloaded' })
  // Until the answer page commits: its load event waits on the held scripts, which never arrive.
  const navigated = page.waitForURL(/\?waitlist=/, { waitUntil: 'commit' })
  const schema = await page.evaluate(
    async ([name, value]) => {
      type Context = {
        getTools(): Promise<{ name: string; inputSchema: string | object }[]>
        executeTool(tool: object, input: object): Promise<string | null>
      }
      const context = (document as unknown as { modelContext: Context }).modelContext
      const tool = (await context.getTools()).find((candidate) => candidate.name === name)
      if (!tool) throw new Error(`no ${name}`)
      // Not awaited: the document that made the call is gone once the form has navigated.
      void context.executeTool(tool, { email: value }).catch(() => {})
      return typeof tool.inputSchema === 'string' ? JSON.parse(tool.inputSchema) : tool.inputSchema
    },
    [requestAccessTool.name, email] as const,
  )
  await navigated
  return { schema, landedOn: new URL(page.url()).search }
}

test.describe('before hydration, in Chromium with WebMCP switched on', () => {
  test('an agent call submits the plain form: the browser lands on the server’s answer, and the address is kept', async ({
    page,
  }) => {
    // The page's scripts never arrive, as on a slow network before hydration.
    await page.route('**/assets/*.js', () => {})
    const email = uniqueEmail('before-hydration')
    const first = await callBeforeHydration(page, email)
    expect(first.schema).toMatchObject({
      properties: { email: { type: 'string', description: requestAccessTool.emailDescription } },
      required: ['email'],
    })
    // What the navigation returns is the answer page: its URL names the outcome (ADR 052 on what
    // the explainer's JSON-LD proposal would hand the agent instead).
    expect(first.landedOn).toBe('?waitlist=submitted')
    // A page of its own: Chromium's WebMCP (behind a flag) now and then crashes the renderer of a
    // document navigated away from mid-call, and a crashed page cannot be navigated again.
    const second = await page.context().newPage()
    await second.route('**/assets/*.js', () => {})
    expect((await callBeforeHydration(second, email.toUpperCase())).landedOn).toBe(
      '?waitlist=already_registered',
    )
  })
})
