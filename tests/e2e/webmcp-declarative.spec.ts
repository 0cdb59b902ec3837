import { requestAccessTool } from '../../contract/agent-tool'
import { CHROMIUM_ARGS, findChromium } from '../support/chromium-path'
import { expect, test, toasts, uniqueEmail } from './fixtures'

/**
 * The real thing: Chromium's own WebMCP (behind a flag in Chromium 156) reads the form's declarative
 * attributes, and an agent's call fills the form, submits it and gets the page's answer through
 * SubmitEvent.respondWith, the same submit path a person's click takes.
 */
test.use({
  launchOptions: { executablePath: findChromium(), args: [...CHROMIUM_ARGS, '--enable-features=WebMCP'] },
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
    })
    await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
    await expect(page.getByPlaceholder('Enter your email')).toHaveValue('')
  })
})
