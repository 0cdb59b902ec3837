import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { expect, expectNoAxeViolations, test, toasts, uniqueEmail } from './fixtures'

/** Collects Content-Security-Policy violations from the moment the page starts. */
async function watchCsp(page: import('@playwright/test').Page) {
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    )
  })
  return () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)
}

test.describe('the trap field (honeypot)', () => {
  test('is outside the accessibility tree and the tab order', async ({ page }) => {
    await page.goto('/')
    await expect(page.getByRole('textbox')).toHaveCount(1)
    await page.getByPlaceholder('Enter your email').focus()
    await page.keyboard.press('Tab')
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeFocused()
    await expectNoAxeViolations(page)
  })

  test('when a bot fills it: the same success toast, the input cleared, nothing sent', async ({
    page,
    server,
  }) => {
    const sent: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/rest/v1/')) sent.push(request.url())
    })
    await page.goto('/')
    const email = uniqueEmail('bot')
    const input = page.getByPlaceholder('Enter your email')
    await input.fill(email)
    // What a form-filling bot does: set every input it finds.
    await page.locator('input[name="website"]').evaluate((field: HTMLInputElement) => {
      field.value = 'https://spam.example'
    })
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(toasts(page).getByText('Request submitted!')).toBeVisible()
    await expect(input).toHaveValue('')
    expect(sent).toEqual([])
    // Nothing was stored: the address can still join.
    const again = await postWaitlist(server, { email })
    expect(again.status).toBe(201)
  })
})

test.describe('a server over its rate limit', () => {
  let limited: TestServer
  test.beforeAll(async () => {
    limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '1' } })
  })
  test.afterAll(async () => {
    await limited?.cleanup()
  })

  test('a 429 shows the Error toast and keeps the input; the page breaks no CSP rule', async ({
    page,
    consoleLog,
  }) => {
    const violations = await watchCsp(page)
    let answered429 = false
    page.on('response', (response) => {
      if (response.url().includes('/rest/v1/waitlist') && response.status() === 429) answered429 = true
    })
    await page.goto(limited.url)
    const input = page.getByPlaceholder('Enter your email')
    await input.fill(uniqueEmail('first'))
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(toasts(page).getByText('Request submitted!')).toBeVisible()

    const second = uniqueEmail('second')
    await input.fill(second)
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(
      toasts(page).getByText('There was an issue submitting your request. Please try again.'),
    ).toBeVisible()
    await expect(toasts(page).getByText('Error', { exact: true })).toBeVisible()
    await expect(input).toHaveValue(second)
    expect(answered429).toBe(true)
    await expect.poll(() => consoleLog.expect(/Waitlist request failed/)).toBeGreaterThan(0)
    consoleLog.expect(/status of 429/)
    expect(await violations()).toEqual([])
  })
})

test('the page loads and submits under its Content-Security-Policy without a violation or a third-party request', async ({
  page,
  server,
}) => {
  const violations = await watchCsp(page)
  const elsewhere: string[] = []
  page.on('request', (request) => {
    if (!request.url().startsWith(`${server.url}/`) && !request.url().startsWith('data:'))
      elsewhere.push(request.url())
  })
  const response = await page.goto('/')
  // Scripts from this origin and the one inline loader, by its hash; nothing inline beyond that.
  expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-[\w+/]+=*';/)
  await page.getByPlaceholder('Enter your email').fill(uniqueEmail('csp'))
  await page.getByRole('button', { name: 'Request Access' }).click()
  await expect(toasts(page).getByText('Request submitted!')).toBeVisible()
  expect(await violations()).toEqual([])
  expect(elsewhere).toEqual([])
})
