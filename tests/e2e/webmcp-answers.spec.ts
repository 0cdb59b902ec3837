import type { Page } from '@playwright/test'
import { requestAccessTool } from '../../contract/agent-tool'
import { openDatabase } from '../../server/db/open-database'
import { answersOf } from '../../server/waitlist/entry-answers'
import { entryStatus } from '../support/entry-status'
import { expect, test, toasts, uniqueEmail } from './fixtures'

/**
 * The page's WebMCP tool with the lab's optional questions (issue 43, item 1), through a stand-in
 * `navigator.modelContext` as tests/e2e/webmcp.spec.ts installs it. The page's own insert carries
 * the address alone; answers go through the site's own /mcp tool, whose check stores them; a
 * wrong answer is refused in the page before any request.
 */
type Tool = { execute(input: object): Promise<unknown> }

async function installModelContext(page: Page) {
  await page.addInitScript(() => {
    const tools: Record<string, unknown> = {}
    ;(window as unknown as { registeredTools: typeof tools }).registeredTools = tools
    Object.defineProperty(navigator, 'modelContext', {
      configurable: true,
      value: {
        registerTool(tool: { name: string }) {
          tools[tool.name] = tool
          return Promise.resolve()
        },
      },
    })
  })
}

/** Calls the registered tool in the page, once it is registered, and returns its result. */
async function callTool(page: Page, input: object): Promise<Record<string, unknown>> {
  const name = requestAccessTool.name
  await page.waitForFunction(
    (tool) => Boolean((window as unknown as { registeredTools: object }).registeredTools?.[tool as never]),
    name,
  )
  return page.evaluate(
    ([tool, args]) =>
      (window as unknown as { registeredTools: Record<string, Tool> }).registeredTools[tool]?.execute(args),
    [name, input] as const,
  ) as Promise<Record<string, unknown>>
}

/** The page's requests to the REST insert and to /mcp, as they leave. */
function watchRequests(page: Page): { rest: string[]; mcp: string[] } {
  const seen = { rest: [] as string[], mcp: [] as string[] }
  page.on('request', (request) => {
    const { pathname } = new URL(request.url())
    if (pathname.startsWith('/rest/v1/')) seen.rest.push(request.method())
    if (pathname === '/mcp') seen.mcp.push(request.method())
  })
  return seen
}

test.describe('the WebMCP tool with answers', () => {
  test.beforeEach(async ({ page }) => {
    await installModelContext(page)
  })

  test('stores them through the site’s MCP tool, not the page’s insert; the visitor sees the same outcome', async ({
    page,
    server,
  }) => {
    const seen = watchRequests(page)
    await page.goto('/')
    const email = uniqueEmail('webmcp-answers')
    const result = await callTool(page, {
      email,
      role: 'Research',
      organisation: ' Acme Lab ',
      use_case: 'Evals',
    })
    expect(result).toEqual({
      status: 'submitted',
      message: "Request submitted! We'll be in touch soon about beta access.",
      next_step: 'wait_for_invitation',
    })
    await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
    expect(seen.rest, 'the page’s own insert was not made').toEqual([])
    expect(seen.mcp).toEqual(['POST'])
    const database = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
    try {
      expect(await answersOf(database.db, email)).toEqual({
        role: 'Research',
        organisation: 'Acme Lab',
        use_case: 'Evals',
      })
    } finally {
      await database.close()
    }
  })

  test('takes the person’s name alone through the site’s MCP tool, kept apart from the answers (issue 64)', async ({
    page,
    server,
  }) => {
    const seen = watchRequests(page)
    await page.goto('/')
    const email = uniqueEmail('webmcp-name')
    expect(await callTool(page, { email, name: ' Ada Lovelace ' })).toMatchObject({ status: 'submitted' })
    expect(seen).toEqual({ rest: [], mcp: ['POST'] })
    const database = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
    try {
      const [row] = await database.db.query<{ name: string }>(
        `select n.name from private.entry_names n join public.waitlist w on w.id = n.waitlist_id
          where w.email = $1`,
        [email],
      )
      expect(row?.name).toBe('Ada Lovelace')
      expect(await answersOf(database.db, email)).toBeUndefined()
    } finally {
      await database.close()
    }
  })

  test('refuses a role outside the choices in the page: a tool error with the reason, no request at all', async ({
    page,
    server,
  }) => {
    const seen = watchRequests(page)
    await page.goto('/')
    const email = uniqueEmail('webmcp-astronaut')
    const result = await callTool(page, { email, role: 'Astronaut' })
    expect(result).toMatchObject({
      status: 'error',
      reason: expect.stringContaining('"role" must be one of "Research"'),
    })
    expect(result.reason).toMatch(/Nothing was stored\.$/)
    expect(seen).toEqual({ rest: [], mcp: [] })
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
    const database = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
    try {
      expect(await entryStatus(database.db, email)).toBeUndefined()
    } finally {
      await database.close()
    }
  })

  test('without answers, keeps the page’s own insert, the one call the page makes', async ({ page }) => {
    const seen = watchRequests(page)
    await page.goto('/')
    const result = await callTool(page, { email: uniqueEmail('webmcp-plain'), role: '' })
    expect(result.status).toBe('submitted')
    expect(seen).toEqual({ rest: ['POST'], mcp: [] })
  })
})
