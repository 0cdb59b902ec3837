import type { Page } from '@playwright/test'
import { requestAccessTool } from '../../contract/agent-tool'
import { expect, test, toasts, uniqueEmail } from './fixtures'

const WAITLIST = '**/rest/v1/waitlist'

interface ToolResult {
  status: string
  message: string
  next_step?: string
}

declare global {
  interface Window {
    /** Tools the page registered with the stand-in model context, by name. */
    registeredTools: Record<
      string,
      {
        title: string
        description: string
        annotations: Record<string, boolean>
        inputSchema: object
        execute(input: object, call?: { signal: AbortSignal }): Promise<unknown>
      }
    >
    pendingCall?: Promise<unknown>
  }
}

/**
 * A minimal `navigator.modelContext`, as an agent-enabled browser without the declarative API (or a
 * WebMCP polyfill) offers it, installed before any page script runs. Chromium without the WebMCP
 * flag has no model context of its own, so this is the one the page finds.
 */
async function installModelContext(page: Page) {
  await page.addInitScript(() => {
    window.registeredTools = {}
    Object.defineProperty(navigator, 'modelContext', {
      configurable: true,
      value: {
        registerTool(
          tool: { name: string } & Window['registeredTools'][string],
          options?: { signal?: AbortSignal },
        ) {
          window.registeredTools[tool.name] = tool
          options?.signal?.addEventListener('abort', () => delete window.registeredTools[tool.name])
          return Promise.resolve()
        },
      },
    })
  })
}

/** Starts a tool call in the page without waiting, so the test can look at the page meanwhile. */
async function startToolCall(page: Page, email: string) {
  await page.waitForFunction((name) => Boolean(window.registeredTools[name]), requestAccessTool.name)
  await page.evaluate(
    ([name, value]) => {
      window.pendingCall = window.registeredTools[name]?.execute({ email: value })
    },
    [requestAccessTool.name, email] as const,
  )
}

/** Holds the page's inserts until the returned function is called, so a test sees the page meanwhile. */
async function holdInserts(page: Page): Promise<() => void> {
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route(WAITLIST, async (route) => {
    await held
    await route.continue()
  })
  return release
}

async function finishToolCall(page: Page): Promise<ToolResult> {
  return (await page.evaluate(() => window.pendingCall)) as ToolResult
}

async function callTool(page: Page, email: string): Promise<ToolResult> {
  await startToolCall(page, email)
  return finishToolCall(page)
}

test.describe('the request_beta_access WebMCP tool', () => {
  test.beforeEach(async ({ page }) => {
    await installModelContext(page)
  })

  test('is registered after hydration with the JSON Schema of the address and the answers, and the form declares the same tool', async ({
    page,
  }) => {
    await page.goto('/')
    await page.waitForFunction((name) => Boolean(window.registeredTools[name]), requestAccessTool.name)
    const registered = await page.evaluate((name) => {
      const tool = window.registeredTools[name]
      return {
        title: tool?.title,
        description: tool?.description,
        annotations: tool?.annotations,
        inputSchema: tool?.inputSchema,
      }
    }, requestAccessTool.name)
    expect(registered).toEqual({
      title: 'Request beta access',
      description: requestAccessTool.description,
      annotations: { readOnlyHint: false, consequentialHint: true, untrustedContentHint: false },
      inputSchema: requestAccessTool.inputSchema,
    })
    // The address, the person's name, then the lab's optional questions by id; nothing else.
    expect(Object.keys(requestAccessTool.inputSchema.properties)).toEqual([
      'email',
      'name',
      'role',
      'organisation',
      'use_case',
    ])
    expect(requestAccessTool.inputSchema).toMatchObject({
      properties: {
        email: { type: 'string', format: 'email', description: requestAccessTool.emailDescription },
        role: {
          type: 'string',
          enum: ['Research', 'Engineering', 'Product', 'Founder or executive', 'Other'],
        },
        organisation: { type: 'string', maxLength: 100 },
        use_case: { type: 'string', maxLength: 500 },
      },
      required: ['email'],
      additionalProperties: false,
    })
    const form = page.locator('form')
    await expect(form).toHaveAttribute('toolname', requestAccessTool.name)
    await expect(form).toHaveAttribute('tooldescription', requestAccessTool.description)
    const input = page.getByRole('textbox', { name: 'Email address' })
    await expect(input).toHaveAttribute('toolparamdescription', requestAccessTool.emailDescription)
    await expect(input).toHaveAttribute('toolparamtitle', 'Email address')
  })

  test('a call the agent gives up on mid-request answers the abort; the visitor still sees the outcome', async ({
    page,
  }) => {
    const release = await holdInserts(page)
    await page.goto('/')
    await page.waitForFunction((name) => Boolean(window.registeredTools[name]), requestAccessTool.name)
    const email = uniqueEmail('given-up')
    await page.evaluate(
      ([name, value]) => {
        const controller = new AbortController()
        const call = window.registeredTools[name]?.execute({ email: value }, { signal: controller.signal })
        window.pendingCall = call?.then(
          () => 'answered',
          (error: Error) => error.name,
        )
        ;(window as unknown as { giveUp: () => void }).giveUp = () => controller.abort()
      },
      [requestAccessTool.name, email] as const,
    )
    await expect(page.getByRole('button', { name: 'Submitting...' })).toBeDisabled()
    await page.evaluate(() => (window as unknown as { giveUp: () => void }).giveUp())
    expect(await page.evaluate(() => window.pendingCall)).toBe('AbortError')
    release()
    await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
  })

  test('a new address: Submitting... while pending, then submitted, the success toast and a cleared input', async ({
    page,
  }) => {
    const release = await holdInserts(page)
    await page.goto('/')
    const email = uniqueEmail('agent')
    await startToolCall(page, email)

    const input = page.getByPlaceholder('Enter your email')
    await expect(page.getByRole('button', { name: 'Submitting...' })).toBeDisabled()
    await expect(input).toBeDisabled()
    await expect(input).toHaveValue(email)

    release()
    expect(await finishToolCall(page)).toEqual({
      status: 'submitted',
      message: "Request submitted! We'll be in touch soon about beta access.",
      next_step: 'wait_for_invitation',
    })
    await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
    await expect(input).toHaveValue('')
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
  })

  test('an address already on the list in other letter case: already_registered, the duplicate toast, input kept', async ({
    page,
    consoleLog,
  }) => {
    await page.goto('/')
    const email = uniqueEmail('twice')
    expect((await callTool(page, email)).status).toBe('submitted')

    const shouted = email.toUpperCase()
    expect(await callTool(page, shouted)).toEqual({
      status: 'already_registered',
      message: 'Already on the waitlist! This email is already registered for beta access.',
    })
    await expect(toasts(page).getByText('Already on the waitlist!').first()).toBeVisible()
    await expect(page.getByPlaceholder('Enter your email')).toHaveValue(shouted)
    // The browser logs the 409 response itself.
    expect(consoleLog.expect(/status of 409/)).toBe(1)
  })

  test('a failing server: error, the Error toast, the input kept and the failure logged', async ({
    page,
    consoleLog,
  }) => {
    await page.route(WAITLIST, (route) =>
      route.fulfill({ status: 500, contentType: 'text/html', body: '<h1>Internal Server Error</h1>' }),
    )
    await page.goto('/')
    const email = uniqueEmail('unlucky')
    expect(await callTool(page, email)).toEqual({
      status: 'error',
      message: 'Error There was an issue submitting your request. Please try again.',
    })
    await expect(toasts(page).getByText('Error', { exact: true }).first()).toBeVisible()
    await expect(page.getByPlaceholder('Enter your email')).toHaveValue(email)
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
    await expect.poll(() => consoleLog.expect(/Waitlist request failed/)).toBeGreaterThan(0)
    consoleLog.expect(/status of 500/)
  })

  test('an empty address is ignored, as the form ignores an empty submit', async ({ page }) => {
    const sent: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/rest/v1/')) sent.push(request.url())
    })
    await page.goto('/')
    expect((await callTool(page, '')).status).toBe('error')
    expect(sent).toEqual([])
    // A real call afterwards brings the toaster in: only its own toast may be there, none for the empty call.
    expect((await callTool(page, uniqueEmail('after-empty'))).status).toBe('submitted')
    await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
    await expect(toasts(page).getByText('Error', { exact: true })).toHaveCount(0)
    expect(sent).toHaveLength(1)
  })
})

test.describe('without WebMCP', () => {
  test('the page works and registers nothing; canonical defaults to the server address', async ({
    page,
    server,
  }) => {
    await page.goto('/')
    expect(await page.evaluate(() => 'modelContext' in navigator || 'modelContext' in document)).toBe(false)
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', `${server.url}/`)
  })
})
