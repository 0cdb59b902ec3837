import { expect, expectNoAxeViolations, test, toasts } from './fixtures'

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

/** A computed colour as [r, g, b] in 0-255, whatever notation the browser reports it in. */
async function rgbOf(
  page: import('@playwright/test').Page,
  selector: string,
  property: 'color' | 'backgroundColor',
) {
  return page.evaluate(
    ([selector, property]) => {
      const element = document.querySelector(selector as string)
      if (!element) throw new Error(`no ${selector}`)
      const canvas = document.createElement('canvas').getContext('2d')
      if (!canvas) throw new Error('no 2d canvas')
      canvas.fillStyle = getComputedStyle(element)[property as 'color']
      canvas.fillRect(0, 0, 1, 1)
      return [...canvas.getImageData(0, 0, 1, 1).data.slice(0, 3)]
    },
    [selector, property],
  )
}

const luminance = ([r, g, b]: number[]) => (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255

test.describe('colour schemes, from the system setting', () => {
  test('dark: a dark background and light text, and the browser told both schemes', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto('/')
    expect(luminance(await rgbOf(page, 'body', 'backgroundColor'))).toBeLessThan(0.1)
    expect(luminance(await rgbOf(page, 'h1', 'color'))).toBeGreaterThan(0.85)
    expect(luminance(await rgbOf(page, '#about p.text-soft, #about h1 + p', 'color'))).toBeGreaterThan(0.5)
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(
      'light dark',
    )
    const themeColors = await page
      .locator('meta[name="theme-color"]')
      .evaluateAll((metas) => metas.map((meta) => meta.getAttribute('media')))
    expect(themeColors).toEqual(['(prefers-color-scheme: light)', '(prefers-color-scheme: dark)'])
  })

  test('light: a light background and dark text', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto('/')
    expect(luminance(await rgbOf(page, 'body', 'backgroundColor'))).toBeGreaterThan(0.95)
    expect(luminance(await rgbOf(page, 'h1', 'color'))).toBeLessThan(0.1)
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const path of ['/', '/missing-page']) {
      test(`${path} in ${colorScheme} has no accessibility violations, contrast included`, async ({
        page,
        consoleLog,
      }) => {
        await page.emulateMedia({ colorScheme })
        await page.goto(path)
        await expectNoAxeViolations(page)
        consoleLog.expect(/404/)
      })
    }
  }
})

test.describe('the hero', () => {
  test('on a wide screen: the graphic fills the right column, the headline keeps agent-centric whole', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto('/')
    const graph = page.locator('#about svg')
    await expect(graph).toBeVisible()
    expect(await graph.locator('text').count()).toBe(0)
    const headline = await boxOf(page.getByRole('heading', { level: 1 }))
    const picture = await boxOf(graph)
    expect(picture.x).toBeGreaterThan(headline.x + headline.width)
    expect(picture.width).toBeGreaterThanOrEqual(380)
    // The hyphenated word sits on one line: its box is one line tall.
    const word = page.getByRole('heading', { level: 1 }).locator('span', { hasText: 'agent-centric' })
    const wordBox = await boxOf(word)
    const lineHeight = await page.evaluate(() =>
      Number.parseFloat(getComputedStyle(document.querySelector('h1') as Element).lineHeight),
    )
    expect(wordBox.height).toBeLessThan(lineHeight * 1.5)
    // Reading width: no line of text wider than 672 px.
    for (const width of await page
      .locator('main p')
      .evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect().width)))
      expect(width).toBeLessThanOrEqual(672)
  })

  test('on a phone: no graphic', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto('/')
    await expect(page.locator('#about svg')).toBeHidden()
  })

  for (const width of [390, 1280]) {
    test(`at ${width} px the headline is the largest contentful paint`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 })
      await page.goto('/')
      const largest = await page.evaluate(
        () =>
          new Promise<string>((resolve) => {
            new PerformanceObserver((list) => {
              const entry = list.getEntries().at(-1) as PerformanceEntry & { element?: Element }
              resolve(entry.element?.tagName ?? 'none')
            }).observe({ type: 'largest-contentful-paint', buffered: true })
          }),
      )
      expect(largest).toBe('H1')
    })
  }

  test('with reduced motion asked for, nothing moves', async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' })
    await page.goto('/')
    expect(await page.evaluate(() => document.getAnimations().length)).toBe(0)
  })

  test('without that wish, the lit path moves (so the check above can fail)', async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'no-preference' })
    await page.goto('/')
    expect(await page.evaluate(() => document.getAnimations().length)).toBeGreaterThan(0)
  })
})

test.describe('rhythm on a wide screen', () => {
  test('Join us in two columns; the footer rule starts and ends with the content', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.goto('/')
    const joinUs = page.getByRole('region', { name: 'Join us' })
    const heading = await boxOf(joinUs.getByRole('heading', { name: 'Join us' }))
    const text = await boxOf(joinUs.locator('p').first())
    expect(text.x).toBeGreaterThan(heading.x + heading.width)
    expect(text.y).toBeLessThan(heading.y + heading.height)

    const rule = await page.getByRole('contentinfo').evaluate((footer) => {
      const line = [...footer.querySelectorAll('*')].find(
        (element) => getComputedStyle(element).borderTopWidth !== '0px',
      )
      const box = (line ?? footer).getBoundingClientRect()
      return { left: box.left, right: box.right }
    })
    const content = await boxOf(page.locator('#join-us'))
    expect(rule.left).toBeCloseTo(content.x, 0)
    expect(rule.right).toBeCloseTo(content.x + content.width, 0)
  })
})

/** Whether two boxes share any area. */
function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

// The toast the page's script shows and the server's no-script answer share one place.
for (const { name, scripts } of [
  { name: 'the toast', scripts: true },
  { name: 'the no-script answer', scripts: false },
]) {
  test.describe(`${name} on a phone`, () => {
    test.use({ javaScriptEnabled: scripts, viewport: { width: 390, height: 844 } })

    test(`at 390 px ${name} covers neither the Join us heading nor the form`, async ({ page }) => {
      await page.goto('/?waitlist=submitted')
      // The toaster's toast is a list item; the no-script answer a status region.
      const toast = toasts(page).locator('li, [role="status"]').filter({ hasText: 'Request submitted!' })
      await expect(toast).toBeVisible()
      const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Request Access' }) })
      const heading = page.getByRole('heading', { name: 'Join us' })
      // As it lands, then scrolled on until the heading sits at the foot of the screen, the form above it.
      for (const atFoot of [false, true]) {
        if (atFoot)
          await heading.evaluate((element) =>
            window.scrollBy(0, element.getBoundingClientRect().bottom - window.innerHeight),
          )
        expect(await form.isVisible()).toBe(true)
        const box = await boxOf(toast)
        expect(overlaps(box, await boxOf(form))).toBe(false)
        expect(overlaps(box, await boxOf(heading))).toBe(false)
      }
    })
  })
}
