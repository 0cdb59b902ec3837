import { expect, test } from './fixtures'

/** The rendered box of an element. */
async function boxOf(locator: import('@playwright/test').Locator) {
  const box = await locator.boundingBox()
  if (!box) throw new Error('element has no box')
  return box
}

test.describe('the form on every width', () => {
  for (const width of [320, 390, 768, 1280]) {
    test(`at ${width} px the field and the button are full touch targets (>= 44 px tall)`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 800 })
      await page.goto('/')
      const field = await boxOf(page.getByPlaceholder('Enter your email'))
      const button = await boxOf(page.getByRole('button', { name: 'Request Access' }))
      expect(field.height).toBeGreaterThanOrEqual(44)
      expect(button.height).toBeGreaterThanOrEqual(44)
      // Wide enough to read an address in, on a phone too.
      expect(field.width).toBeGreaterThanOrEqual(Math.min(240, width - 80))
    })
  }

  test('at 320 px nothing scrolls sideways', async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 640 })
    await page.goto('/')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
  })
})

test.describe('never a blank page', () => {
  test('scripts gone after a redeploy: a submit still shows the error toast, in words', async ({
    page,
    consoleLog,
  }) => {
    await page.goto('/')
    // The page is open; a deploy replaces every hashed script: the lazy chunks now 404.
    await page.route('**/assets/**', (route) => route.fulfill({ status: 404, body: 'Not Found' }))
    const input = page.getByPlaceholder('Enter your email')
    await input.fill('redeploy@example.com')
    await page.getByRole('button', { name: 'Request Access' }).click()
    const notifications = page.getByRole('region', { name: /Notifications/ })
    await expect(notifications.getByText('Error', { exact: true })).toBeVisible()
    await expect(
      notifications.getByText('There was an issue submitting your request. Please try again.'),
    ).toBeVisible()
    // The page itself is still there, the address kept for another try.
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(input).toHaveValue('redeploy@example.com')
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
    expect(consoleLog.expect(/Waitlist request failed/)).toBeGreaterThan(0)
    consoleLog.expect(/status of 404|Unexpected Application Error|dynamically imported module/)
  })

  test('a component that throws: the error page, in the page style, logged, with a way home', async ({
    page,
    consoleLog,
  }) => {
    await page.goto('/?render-error')
    await expect(page.getByRole('heading', { name: 'Unexpected Application Error!' })).toBeVisible()
    await expect(page.getByText('Something went wrong on our side. Please try again.')).toBeVisible()
    await expect.poll(() => consoleLog.expect(/Render error requested/)).toBeGreaterThan(0)
    await page.getByRole('link', { name: 'Return to Home' }).click()
    await expect(page).toHaveURL(/\/$/)
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeVisible()
  })
})
