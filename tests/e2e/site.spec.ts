import type { Route } from '@playwright/test'
import { requestAccessTool } from '../../contract/agent-tool'
import { siteConfig } from '../../contract/site-config'
import { withServerDatabase } from '../../harness/server-database'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import {
  callPageTool,
  expect,
  expectNoAxeViolations,
  offerModelContext,
  test,
  toasts,
  uniqueEmail,
} from './fixtures'

const WAITLIST = '**/rest/v1/waitlist'

test.describe('the page at /', () => {
  test('is prerendered: the HTML holds the whole page before any script runs', async ({ request }) => {
    const response = await request.get('/')
    expect(response.status()).toBe(200)
    const html = await response.text()
    for (const text of [
      'Request Access',
      'Enter your email',
      'Join us',
      'All Systems Operational',
      siteConfig.city,
      'Careers',
    ]) {
      expect(html).toContain(text)
    }
    expect(html).toContain('id="about"')
  })

  test('paints from its HTML alone: no script is requested before the first contentful paint', async ({
    page,
  }) => {
    await page.goto('/')
    // The app has hydrated: the WebMCP tool is registered by an effect.
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
    const timings = await page.evaluate(async () => {
      // Hydration is on its way once the entry chunk has been requested.
      while (!performance.getEntriesByType('resource').some((entry) => entry.name.includes('/assets/')))
        await new Promise((resolve) => setTimeout(resolve, 20))
      const paint = performance.getEntriesByName('first-contentful-paint')[0]?.startTime
      const scripts = performance
        .getEntriesByType('resource')
        .filter((entry) => entry.name.includes('/assets/'))
        .map((entry) => ({ name: entry.name, startTime: entry.startTime }))
      return { paint, scripts }
    })
    expect(timings.paint).toBeGreaterThan(0)
    for (const script of timings.scripts)
      expect(script.startTime, script.name).toBeGreaterThanOrEqual(timings.paint ?? 0)
  })

  test('header: logo, wordmark linking home, Careers opening the job board in a new tab', async ({
    page,
  }) => {
    await page.goto('/')
    const banner = page.getByRole('banner')
    const logo = banner.getByRole('img', { name: siteConfig.logo.alt })
    await expect(logo).toBeVisible()
    await expect(logo).toHaveAttribute('width', String(siteConfig.logo.width))
    await expect(banner.getByRole('link', { name: siteConfig.wordmark })).toHaveAttribute('href', '/')
    const careers = banner.getByRole('link', { name: 'Careers' })
    await expect(careers).toHaveAttribute('href', siteConfig.careersUrl)
    await expect(careers).toHaveAttribute('target', '_blank')
    await expect(careers).toHaveAttribute('rel', 'noopener noreferrer')
  })

  test('About and Join us sections say what the spec says', async ({ page }) => {
    await page.goto('/')
    const about = page.locator('section#about')
    await expect(about.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(about).toContainText('invoke the right tool')
    await expect(about).toContainText('first-party data')
    await expect(about.getByPlaceholder('Enter your email')).toBeVisible()

    const joinUs = page.getByRole('region', { name: 'Join us' })
    await expect(joinUs.getByRole('heading', { name: 'Join us' })).toBeVisible()
    await expect(joinUs).toContainText('accelerator')
    await expect(joinUs).toContainText('seed round')
    await expect(joinUs).toContainText('research, engineering, operations and product')
    await expect(joinUs.getByRole('link', { name: siteConfig.hiringEmail })).toHaveAttribute(
      'href',
      `mailto:${siteConfig.hiringEmail}`,
    )
    const careers = joinUs.getByRole('link', { name: /careers page/ })
    await expect(careers).toHaveAttribute('href', siteConfig.careersUrl)
    await expect(careers).toHaveAttribute('target', '_blank')
  })

  test('footer: the city and a green dot with the static status text', async ({ page }) => {
    await page.goto('/')
    const footer = page.getByRole('contentinfo')
    await expect(footer).toContainText('San Francisco')
    await expect(footer).toContainText('All Systems Operational')
    const color = await footer
      .getByTestId('status-dot')
      .evaluate((dot) => getComputedStyle(dot).backgroundColor)
    // Tailwind's green-500 is defined in oklch and Chromium reports it in lab(): a strongly
    // negative a* axis is green. Accept rgb() too, for other engines.
    const lab = /lab\([\d.]+ (-?[\d.]+) (-?[\d.]+)/.exec(color)
    const rgb = /rgba?\((\d+), (\d+), (\d+)/.exec(color)
    const green = lab ? Number(lab[1]) < -30 : Boolean(rgb && Number(rgb[2]) > Number(rgb[1]) + 50)
    expect(green, `status dot colour ${color}`).toBe(true)
  })

  test('has no accessibility violations', async ({ page }) => {
    await page.goto('/')
    await expectNoAxeViolations(page)
  })
})

test.describe('the access-request form', () => {
  test('ignores an empty submit: nothing is sent, no toast', async ({ page }) => {
    const sent: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/rest/v1/')) sent.push(request.url())
    })
    await page.goto('/')
    await page.getByRole('button', { name: 'Request Access' }).click()
    await page.getByPlaceholder('Enter your email').press('Enter')
    await page.waitForTimeout(300)
    expect(sent).toEqual([])
    await expect(toasts(page)).toHaveCount(0)
    await expect(page).toHaveURL(/\/$/)
  })

  test('shows Submitting... with input and button disabled, then clears and confirms', async ({ page }) => {
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route(WAITLIST, async (route) => {
      await held
      await route.continue()
    })
    await page.goto('/')
    const input = page.getByPlaceholder('Enter your email')
    await input.fill(uniqueEmail())
    await page.getByRole('button', { name: 'Request Access' }).click()

    const busy = page.getByRole('button', { name: 'Submitting...' })
    await expect(busy).toBeDisabled()
    await expect(input).toBeDisabled()
    release()

    await expect(toasts(page).getByText('Request submitted!')).toBeVisible()
    await expect(toasts(page).getByText("We'll be in touch soon about beta access.")).toBeVisible()
    await expect(input).toHaveValue('')
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeEnabled()
    await expectNoAxeViolations(page)
  })

  test('an address already on the list, in other letter case, gives Already on the waitlist!', async ({
    page,
    consoleLog,
  }) => {
    const email = uniqueEmail('dup')
    await page.goto('/')
    const input = page.getByPlaceholder('Enter your email')
    await input.fill(email)
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(toasts(page).getByText('Request submitted!')).toBeVisible()

    const shouted = email.toUpperCase()
    await input.fill(shouted)
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(toasts(page).getByText('Already on the waitlist!')).toBeVisible()
    await expect(toasts(page).getByText('This email is already registered for beta access.')).toBeVisible()
    await expect(input).toHaveValue(shouted)
    // The browser reports the 409 itself; the page logs nothing for a duplicate.
    expect(consoleLog.expect(/status of 409/)).toBe(1)
  })

  const FAILURES = [
    {
      name: 'a network failure gives Error, keeps the input and logs the error',
      prefix: 'offline',
      answer: (route: Route) => route.abort('internetdisconnected'),
      // The aborted request itself is reported by the browser.
      browserLine: /Failed to load resource|ERR_INTERNET_DISCONNECTED/,
    },
    {
      name: 'a 500 from the server gives Error and keeps the input',
      prefix: 'fivehundred',
      answer: (route: Route) =>
        route.fulfill({ status: 500, contentType: 'text/html', body: '<h1>Internal Server Error</h1>' }),
      browserLine: /status of 500/,
    },
  ]
  for (const failure of FAILURES) {
    test(failure.name, async ({ page, consoleLog }) => {
      await page.route(WAITLIST, failure.answer)
      await page.goto('/')
      const input = page.getByPlaceholder('Enter your email')
      const email = uniqueEmail(failure.prefix)
      await input.fill(email)
      await page.getByRole('button', { name: 'Request Access' }).click()
      await expect(
        toasts(page).getByText('There was an issue submitting your request. Please try again.'),
      ).toBeVisible()
      await expect(toasts(page).getByText('Error', { exact: true })).toBeVisible()
      await expect(input).toHaveValue(email)
      await expect.poll(() => consoleLog.expect(/Waitlist request failed/)).toBeGreaterThan(0)
      consoleLog.expect(failure.browserLine)
    })
  }

  test('an address at a disposable service gives Error, keeps the input and stores nothing', async ({
    page,
    consoleLog,
    server,
  }) => {
    await page.goto('/')
    const input = page.getByPlaceholder('Enter your email')
    const email = `${uniqueEmail('junk').split('@')[0]}@mailinator.com`
    await input.fill(email)
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(
      toasts(page).getByText('There was an issue submitting your request. Please try again.'),
    ).toBeVisible()
    await expect(input).toHaveValue(email)
    await expect.poll(() => consoleLog.expect(/Waitlist request failed/)).toBeGreaterThan(0)
    consoleLog.expect(/status of 400/)
    const stored = await withServerDatabase(server, (db) =>
      db.query('select 1 from public.waitlist where email = $1', [email]),
    )
    expect(stored).toEqual([])
  })

  test('does not load the Supabase client or the toaster until the visitor reaches for the form', async ({
    page,
  }) => {
    const scripts: string[] = []
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(request.url())
    })
    await page.goto('/')
    await page.waitForLoadState('networkidle')
    expect(scripts.some((url) => /supabase-client|toaster/.test(url))).toBe(false)
    await page.getByPlaceholder('Enter your email').focus()
    await expect.poll(() => scripts.some((url) => url.includes('supabase-client'))).toBe(true)
  })
})

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false })

  test('the form posts to the server and the address never appears in a URL', async ({ page, server }) => {
    const email = uniqueEmail('noscript')
    await page.goto('/')
    await page.getByPlaceholder('Enter your email').fill(email)
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(page).toHaveURL(/\/\?waitlist=submitted$/)
    expect(page.url()).not.toContain(encodeURIComponent(email))
    expect(page.url()).not.toContain('@')

    const again = await postWaitlist(server, { email })
    expect(again.status).toBe(409)
  })

  test("the page it lands on says what happened, in the toast's words, place and look", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    const email = uniqueEmail('noscript-answer')
    const answers = [
      { role: 'status', title: 'Request submitted!', text: "We'll be in touch soon about beta access." },
      {
        role: 'alert',
        title: 'Already on the waitlist!',
        text: 'This email is already registered for beta access.',
      },
    ] as const
    for (const { role, title, text } of answers) {
      await page.goto('/')
      await page.getByPlaceholder('Enter your email').fill(email)
      await page.getByRole('button', { name: 'Request Access' }).click()
      const answer = page.getByRole('region', { name: 'Notifications' }).getByRole(role)
      await expect(answer.getByText(title, { exact: true })).toBeVisible()
      await expect(answer.getByText(text, { exact: true })).toBeVisible()
      // Where a toast would be, fixed in the viewport, and clear of the form it answers.
      const box = await answer.boundingBox()
      const form = await page.getByRole('button', { name: 'Request Access' }).boundingBox()
      expect(box && form && (box.y >= form.y + form.height || box.y + box.height <= form.y)).toBe(true)
      expect(
        await answer.evaluate((element) => getComputedStyle(element.parentElement as Element).position),
      ).toBe('fixed')
    }
    // Close, without scripts: back to the plain page, no answer on it.
    await page.getByRole('link', { name: 'Close' }).click()
    await expect(page).toHaveURL(/\/$/)
    await expect(page.getByRole('region', { name: 'Notifications' })).toHaveCount(0)
  })

  test('an error answers with the Error title and text as an alert', async ({ page }) => {
    await page.goto('/?waitlist=error')
    const alert = page.getByRole('region', { name: 'Notifications' }).getByRole('alert')
    await expect(alert.getByText('Error', { exact: true })).toBeVisible()
    await expect(
      alert.getByText('There was an issue submitting your request. Please try again.'),
    ).toBeVisible()
  })
})

test.describe('the no-script result, once scripts run', () => {
  test('shows the toast the redirect names and tidies the address bar', async ({ page }) => {
    await page.goto('/?waitlist=submitted')
    await expect(toasts(page).getByText('Request submitted!')).toBeVisible()
    await expect(page).toHaveURL(/\/$/)
    // The server's answer for scripts off gave way to the toast: the words show once.
    await expect(page.getByText('Request submitted!')).toHaveCount(1)
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`the answer for scripts off passes axe (${colorScheme})`, async ({ context }) => {
      // The page's scripts never load (blocked, as for a visitor without them); axe's own run.
      const page = await context.newPage()
      await page.route('**/assets/**', (route) => route.abort())
      await page.emulateMedia({ colorScheme })
      for (const status of ['submitted', 'already_registered']) {
        await page.goto(`/?waitlist=${status}`)
        await expect(page.getByRole('region', { name: 'Notifications' })).toBeVisible()
        await expectNoAxeViolations(page)
      }
    })
  }
})

test.describe('unknown paths', () => {
  test("include the build's own files: only the site is served", async ({ request }) => {
    for (const path of [
      '/.build-stamp',
      '/index.html',
      '/404/index.html',
      '/src/main.tsx',
      '/package.json',
    ]) {
      expect((await request.get(path)).status(), path).toBe(404)
    }
  })

  test('answer 404 with the 404 page, log the path, and lead home', async ({ page, consoleLog }) => {
    const response = await page.goto('/no/such/path')
    expect(response?.status()).toBe(404)
    await expect(page.getByRole('heading', { name: '404' })).toBeVisible()
    await expect(page.getByText('Oops! Page not found')).toBeVisible()
    // The site's header: whose site this is, its logo leading home.
    const header = page.getByRole('banner')
    await expect(header.getByRole('img', { name: siteConfig.logo.alt })).toBeVisible()
    await expect(header.getByRole('link', { name: new RegExp(siteConfig.wordmark) })).toHaveAttribute(
      'href',
      '/',
    )
    await expect.poll(() => consoleLog.expect(/\/no\/such\/path/)).toBe(1)
    // The browser's own note about the 404 response.
    consoleLog.expect(/status of 404/)
    await expectNoAxeViolations(page)

    await page.getByRole('link', { name: 'Return to Home' }).click()
    await expect(page).toHaveURL(/\/$/)
    await expect(page.getByRole('button', { name: 'Request Access' })).toBeVisible()
  })
})

test.describe('a server that confirms signups (CONFIRM_SIGNUPS)', () => {
  let sink: SmtpSink
  let confirming: TestServer
  test.beforeAll(async () => {
    sink = await startSmtpSink()
    confirming = await startTestServer({
      env: { CONFIRM_SIGNUPS: 'true', SMTP_URL: sink.url, MAIL_FROM: 'Lab <beta@lab.example>' },
    })
  })
  test.afterAll(async () => {
    await confirming?.cleanup()
    await sink?.close()
  })

  test('the success toast asks to check the inbox', async ({ page, consoleLog }) => {
    await page.goto(confirming.url)
    await page.getByPlaceholder('Enter your email').fill(uniqueEmail('confirm'))
    await page.getByRole('button', { name: 'Request Access' }).click()
    await expect(toasts(page).getByText('Request submitted!')).toBeVisible()
    await expect(toasts(page).getByText('Check your inbox to confirm your address.')).toBeVisible()
    await expect(toasts(page).getByText("We'll be in touch soon about beta access.")).toHaveCount(0)
    expect(consoleLog.problems).toEqual([])
  })

  test('an agent through WebMCP is told the same, with the next step named', async ({ page }) => {
    await offerModelContext(page)
    await page.goto(confirming.url)
    const result = await callPageTool(page, requestAccessTool.name, { email: uniqueEmail('agent-confirm') })
    expect(result).toEqual({
      status: 'submitted',
      message: 'Request submitted! Check your inbox to confirm your address.',
      next_step: 'confirm_email',
    })
    await expect(toasts(page).getByText('Check your inbox to confirm your address.')).toBeVisible()
  })
})
