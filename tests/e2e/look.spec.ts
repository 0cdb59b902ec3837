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
