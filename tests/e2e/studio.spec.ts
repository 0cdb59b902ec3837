import { readFile } from 'node:fs/promises'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from '@playwright/test'
import { STUDIO_E2E_BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { expectNoAxeViolations, workerTest as test, watchConsole } from './fixtures'

// 30 signups: more than one page (25), so paging shows; the last one is the newest.
const EMAILS = Array.from(
  { length: 30 },
  (_, index) => `person.${String(index).padStart(2, '0')}@example.com`,
)
const NEWEST = EMAILS.at(-1) ?? ''
// The studio queues invitations and the server sends them, with its own mail settings: an
// SMTP_URL never reached here.
const MAIL_ENV = { SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'Tessel Labs <beta@tessel-labs.example>' }

/** What a browser sends with the studio page's own requests. */
const SAME_ORIGIN = { 'Sec-Fetch-Site': 'same-origin' }

/** A raw request, so the Host header is exactly what we say (fetch would not let us set it). */
function rawGet(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = ''
        res.on('data', (chunk) => {
          body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      })
      req.on('error', reject)
      req.end()
    },
  )
}

test.afterAll(async () => {
  await stopBackends()
})

for (const { name } of STUDIO_E2E_BACKENDS) {
  test.describe
    .serial(`the waitlist studio on ${name}`, () => {
      let server: TestServer
      let studio: StudioProcess
      let exported: string

      test.beforeAll(async () => {
        test.setTimeout(120_000)
        server = await startServerOn(name, { env: MAIL_ENV })
        for (const email of EMAILS) expect((await postWaitlist(server, { email })).status).toBe(201)
        // What `export` writes, to compare with the studio's download.
        const result = await runCli(server.env, 'export')
        expect(result.code).toBe(0)
        exported = result.stdout
        // Beside the running server, with no mail settings of its own (only DATA_DIR or DATABASE_URL).
        studio = await startStudioProcess({
          DATA_DIR: server.dataDir,
          DATABASE_URL: server.env.DATABASE_URL ?? '',
        })
      })
      test.afterAll(async () => {
        expect(await studio?.stop()).toBe(0)
        await server?.cleanup()
      })

      test('gives nothing without the token, or with a wrong one', async () => {
        for (const path of ['/api/summary', '/api/entries', '/api/export.csv']) {
          const response = await fetch(`${studio.origin}${path}`, { headers: SAME_ORIGIN })
          expect(response.status, path).toBe(401)
          const body = await response.text()
          expect(body).toContain('needs its token')
          expect(body).not.toContain('@example.com')
        }
        // The page's own files hold no data and load without it (the token is in the fragment).
        const page = await fetch(`${studio.origin}/`)
        expect(page.status).toBe(200)
        expect(await page.text()).not.toContain('@example.com')
        // A Bearer that is no session it opened is no session: the same 401.
        const wrongBearer = await fetch(`${studio.origin}/api/entries`, {
          headers: { ...SAME_ORIGIN, Authorization: 'Bearer not-the-token' },
        })
        expect(wrongBearer.status).toBe(401)
        expect(await wrongBearer.text()).toContain('needs its token')
        const removal = await fetch(`${studio.origin}/api/remove`, {
          method: 'POST',
          headers: { ...SAME_ORIGIN, 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: NEWEST }),
        })
        expect(removal.status).toBe(401)
      })

      test('its API refuses any other Sec-Fetch-Site than same-origin, even with the token', async () => {
        const auth = { Authorization: `Bearer ${studio.token}` }
        for (const site of ['cross-site', 'same-site', 'none']) {
          const headers: Record<string, string> = site ? { ...auth, 'Sec-Fetch-Site': site } : auth
          const response = await fetch(`${studio.origin}/api/entries`, { headers })
          expect(response.status, String(site)).toBe(403)
          const body = await response.text()
          expect(body).toContain('answers only its own page')
          expect(body).not.toContain('@example.com')
        }
        // A change wants its own page's Sec-Fetch-Site or Origin: neither, or another's, is refused.
        const refused: Record<string, string>[] = [
          { 'Sec-Fetch-Site': 'same-site' },
          {},
          { Origin: 'http://evil.example' },
        ]
        for (const headers of refused) {
          const removal = await fetch(`${studio.origin}/api/remove`, {
            method: 'POST',
            headers: { ...auth, ...headers, 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: NEWEST }),
          })
          expect(removal.status).toBe(403)
        }
      })

      test('the page without its token, or with a wrong one, says so and shows no address', async ({
        page,
      }) => {
        await page.goto(`${studio.origin}/`)
        await expect(page.getByRole('alert')).toContainText('needs its token')
        await page.goto(`${studio.origin}/#token=not-the-token`)
        await page.reload()
        await expect(page.getByRole('alert')).toContainText('Wrong token')
        await expect(page.getByText('@example.com')).toHaveCount(0)
      })

      test('the token never lands in a cookie: another port on 127.0.0.1 receives none', async ({
        page,
        context,
      }) => {
        const seen: (string | undefined)[] = []
        const other = createServer((request, response) => {
          seen.push(request.headers.cookie)
          response.end('another program on this machine')
        })
        await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
        try {
          await page.goto(studio.url)
          await expect(page.getByRole('table')).toContainText(NEWEST)
          // The address bar (and so the history) has lost the token.
          expect(page.url()).toBe(`${studio.origin}/`)
          expect(await context.cookies()).toEqual([])
          const { port } = other.address() as AddressInfo
          await page.goto(`http://127.0.0.1:${port}/`)
          await page.goto(`http://127.0.0.1:${port}/again`)
          // Both visits (and any favicon request) came with no Cookie header at all.
          expect(seen.length).toBeGreaterThanOrEqual(2)
          for (const cookie of seen) expect(cookie ?? '').not.toContain(studio.token)
          expect(seen.filter((cookie) => cookie !== undefined)).toEqual([])
        } finally {
          other.close()
        }
      })

      test('refuses a foreign Host (DNS rebinding), even with the token, and sends no CORS headers', async () => {
        const auth = { ...SAME_ORIGIN, Authorization: `Bearer ${studio.token}` }
        const foreign = await rawGet(studio.port, '/api/entries', { ...auth, Host: 'evil.example' })
        expect(foreign.status).toBe(403)
        expect(foreign.body).toContain('answers only requests addressed to 127.0.0.1')
        expect(foreign.body).not.toContain('@example.com')
        const rebound = await rawGet(studio.port, '/api/entries', {
          ...auth,
          Host: `evil.example:${studio.port}`,
        })
        expect(rebound.status).toBe(403)
        const local = await rawGet(studio.port, '/api/entries', {
          ...auth,
          Host: `localhost:${studio.port}`,
          Origin: 'http://evil.example',
        })
        expect(local.status).toBe(200)
        expect(local.body).toContain(NEWEST)
        expect(Object.keys(local.headers).filter((header) => header.startsWith('access-control-'))).toEqual(
          [],
        )
      })

      test('shows the total, the chart and the newest address; searches and pages', async ({ page }) => {
        const problems = watchConsole(page)
        await page.goto(studio.url)
        // The token left the address bar for the tab's own storage.
        expect(page.url()).toBe(`${studio.origin}/`)
        await expect(page.getByRole('heading', { name: 'Waitlist studio' })).toBeVisible()
        await expect(page.getByText(`${EMAILS.length} addresses on the waitlist`)).toBeVisible()
        // The header's backup line: this studio's env has no BACKUP_URL (with DATABASE_URL, no warning).
        const backup = name === 'embedded' ? 'BACKUP_URL is not set' : "your database provider's"
        await expect(page.getByText(backup)).toBeVisible()
        await expect(page.getByRole('img', { name: new RegExp(`${EMAILS.length} in all`) })).toBeVisible()
        const rows = page.getByRole('table').getByRole('row')
        await expect(rows.nth(1)).toContainText(NEWEST)
        await expect(rows).toHaveCount(26)
        await expect(page.getByText(`Page 1 of 2 · ${EMAILS.length} in all`)).toBeVisible()

        await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled()
        await page.getByRole('button', { name: 'Next' }).click()
        await expect(page.getByText('Page 2 of 2')).toBeVisible()
        await expect(rows).toHaveCount(6)
        await expect(rows.nth(5)).toContainText(EMAILS[0] ?? '')
        await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled()
        // Pages follow the last entry shown (a keyset), so back is the same first page.
        await page.getByRole('button', { name: 'Previous' }).click()
        await expect(page.getByText(`Page 1 of 2 · ${EMAILS.length} in all`)).toBeVisible()
        await expect(rows.nth(1)).toContainText(NEWEST)
        await expect(rows).toHaveCount(26)

        await page.getByLabel('Search addresses').fill('PERSON.07')
        await expect(page.getByText('Page 1 of 1 · 1 matching')).toBeVisible()
        await expect(rows).toHaveCount(2)
        await expect(rows.nth(1)).toContainText('person.07@example.com')
        await page.getByLabel('Search addresses').fill('nobody-like-this')
        await expect(page.getByText('No address matches the search.')).toBeVisible()

        await page.getByRole('button', { name: '90 days' }).click()
        await expect(page.getByRole('button', { name: '90 days' })).toHaveAttribute('aria-pressed', 'true')
        expect(problems).toEqual([])
      })

      test('downloads the same CSV file as `export`', async ({ page }) => {
        await page.goto(studio.url)
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Download CSV' }).click(),
        ])
        expect(download.suggestedFilename()).toBe('waitlist.csv')
        expect(await readFile((await download.path()) ?? '', 'utf8')).toBe(exported)
      })

      test('has the Activity page, as its owner cli:USER, beside the list (ADR 112)', async ({ page }) => {
        await page.goto(studio.url)
        await expect(page.getByText(/^cli:\S+ · owner$/)).toBeVisible()
        await page.getByRole('link', { name: 'Activity' }).click()
        await expect(page).toHaveURL(`${studio.origin}/activity`)
        // The tab keeps its session: the record's page reads with it, the link already spent.
        await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible()
        await expect(page.getByRole('alert')).toHaveCount(0)
        await expect(page.getByRole('link', { name: 'Your passkeys' })).toHaveCount(0)
        if (name !== 'embedded') return
        // Settings: the mail's preflight, read as the page opens (none has run: a trial sender).
        await page.getByRole('link', { name: 'Settings' }).click()
        await expect(page).toHaveURL(`${studio.origin}/settings`)
        await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible()
        const preflight = page.getByRole('region', { name: 'Deliverability preflight' })
        await expect(preflight).toContainText('No preflight has run yet.')
        await expect(page.getByRole('alert')).toHaveCount(0)
      })

      test('passes axe, with the entry’s panel and the removal’s dialog open', async ({ page }) => {
        await page.goto(studio.url)
        await expect(page.getByRole('table')).toBeVisible()
        await expectNoAxeViolations(page)
        await page.getByRole('table').getByRole('button', { name: NEWEST, exact: true }).click()
        await page
          .getByRole('dialog', { name: NEWEST })
          .getByRole('button', { name: `Remove ${NEWEST}` })
          .click()
        await expect(page.getByRole('dialog', { name: 'Remove this address?' })).toBeVisible()
        await expectNoAxeViolations(page)
      })

      test('on a phone, in either scheme: the filters fold behind one button, the table scrolls sideways in its region', async ({
        page,
      }) => {
        const long = `${'a-very-long-local-part.with.many.dots'.repeat(2)}@${'subdomain.'.repeat(4)}example.com`
        // The list answers with one long address; the rest of the studio is the real one.
        await page.route('**/api/entries?*', async (route) => {
          // Replayed outside the browser, the request lacks the Sec-Fetch-Site the studio's API wants.
          const headers = { ...route.request().headers(), 'sec-fetch-site': 'same-origin' }
          const real = (await (await route.fetch({ headers })).json()) as { entries: { email: string }[] }
          const [first, ...rest] = real.entries
          // And a list of over a million, so the paging line is as long as it gets.
          await route.fulfill({
            json: { ...real, matching: 1_234_567, entries: [{ ...first, email: long }, ...rest] },
          })
        })
        await page.setViewportSize({ width: 390, height: 844 })
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme })
          await page.goto(studio.url)
          const table = page.getByRole('region', { name: 'The table of signups' })
          await expect(table.getByRole('button', { name: long })).toBeVisible()
          // The page itself never scrolls sideways; the table does, in its own region.
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
          ).toBeLessThanOrEqual(0)
          expect(await table.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true)
          await expect(page.getByText('Page 1 of 49,383 · 1,234,567 in all')).toBeVisible()
          // The filters wait behind one button.
          const filters = page.getByRole('button', { name: 'Filters' })
          await expect(page.getByRole('group', { name: /^Status/ })).toBeHidden()
          await filters.click()
          await expect(filters).toHaveAttribute('aria-expanded', 'true')
          await expect(page.getByRole('group', { name: /^Status/ })).toBeVisible()
          await expectNoAxeViolations(page)
          // Folded again (the next scheme's goto only changes the fragment: the page stays).
          await filters.click()
          await expect(page.getByRole('group', { name: /^Status/ })).toBeHidden()
        }
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
        expect(background).not.toBe('rgb(255, 255, 255)')
      })

      test('removes an address from its panel after a confirmation, and cancelling removes nothing', async ({
        page,
      }) => {
        const problems = watchConsole(page)
        await page.goto(studio.url)
        // No Remove beside the selection's boxes: it lives in the entry's panel.
        await expect(page.getByRole('table').getByRole('button', { name: /^Remove/ })).toHaveCount(0)
        const dialog = page.getByRole('dialog', { name: 'Remove this address?' })
        const panel = page.getByRole('dialog', { name: NEWEST })
        await page.getByRole('table').getByRole('button', { name: NEWEST, exact: true }).click()
        await panel.getByRole('button', { name: `Remove ${NEWEST}` }).click()
        await expect(dialog).toContainText(NEWEST)
        await dialog.getByRole('button', { name: 'Cancel' }).click()
        await expect(dialog).toBeHidden()
        await expect(panel).toBeVisible()
        await expect(page.getByRole('table')).toContainText(NEWEST)

        await panel.getByRole('button', { name: `Remove ${NEWEST}` }).click()
        await dialog.getByRole('button', { name: 'Remove' }).click()
        await expect(page.getByRole('status').filter({ hasText: 'Removed' })).toHaveText(`Removed ${NEWEST}.`)
        await expect(panel).toBeHidden()
        await expect(page.getByText(`${EMAILS.length - 1} addresses on the waitlist`)).toBeVisible()
        await expect(page.getByRole('table')).not.toContainText(NEWEST)
        const check = await fetch(`${studio.origin}/api/entries?q=${encodeURIComponent(NEWEST)}`, {
          headers: { ...SAME_ORIGIN, Authorization: `Bearer ${studio.token}` },
        })
        expect(((await check.json()) as { matching: number }).matching).toBe(0)
        expect(problems).toEqual([])
      })

      test('removes with the keyboard alone; Escape cancels', async ({ page }) => {
        const target = EMAILS.at(-2) ?? ''
        await page.goto(studio.url)
        await expect(page.getByRole('table')).toContainText(target)
        const address = page.getByRole('table').getByRole('button', { name: target, exact: true })
        const tabTo = async (element: typeof address) => {
          for (let presses = 0; presses < 60; presses++) {
            if (await element.evaluate((found) => found === document.activeElement)) break
            await page.keyboard.press('Tab')
          }
          await expect(element).toBeFocused()
        }
        // Tab from the top of the page to the row's address, which opens its panel.
        await tabTo(address)
        await page.keyboard.press('Enter')
        const removeButton = page
          .getByRole('dialog', { name: target })
          .getByRole('button', { name: `Remove ${target}` })
        await tabTo(removeButton)
        const dialog = page.getByRole('dialog', { name: 'Remove this address?' })

        await page.keyboard.press('Enter')
        await expect(dialog).toBeVisible()
        await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
        await page.keyboard.press('Escape')
        await expect(dialog).toBeHidden()
        await expect(page.getByRole('table')).toContainText(target)
        // The closed dialog gives focus back to the button that opened it.
        await expect(removeButton).toBeFocused()

        // Escape then Enter at once, before the dialog's close event has run: it opens again.
        await page.keyboard.press('Enter')
        await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
        await page.keyboard.press('Escape')
        await page.keyboard.press('Enter')
        await expect(dialog).toBeVisible()
        await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
        await page.keyboard.press('Tab')
        await expect(dialog.getByRole('button', { name: 'Remove' })).toBeFocused()
        await page.keyboard.press('Enter')
        await expect(page.getByRole('status').filter({ hasText: 'Removed' })).toHaveText(`Removed ${target}.`)
        await expect(page.getByRole('table')).not.toContainText(target)
        await expect(page.getByRole('heading', { name: 'Signups, newest first' })).toBeFocused()
      })

      // Once, on the embedded cluster: the studio's invite API and its SQL are the same on both.
      if (name === 'embedded')
        test('invites the next N only after showing the count and the message', async ({ page }) => {
          const problems = watchConsole(page)
          // The table oldest first: "the next N" are its first rows.
          await page.goto(studio.at('sort=created_at&order=asc'))
          const panel = page.getByRole('region', { name: 'Invite the next N' })
          await panel.getByLabel('People to invite (oldest first)').fill('3')
          await panel.getByRole('button', { name: 'Preview' }).click()
          await expect(panel.getByRole('heading', { name: '3 people will be invited' })).toBeVisible()
          const who = panel.getByRole('list', { name: 'Who will be invited' }).getByRole('listitem')
          await expect(who).toHaveText(EMAILS.slice(0, 3))
          await expect(panel).toContainText('Your invitation to the Tessel Labs private beta')
          const message = page.frameLocator('iframe[title="The invitation as it will look"]')
          await expect(message.getByRole('link', { name: 'Open the beta' })).toBeVisible()
          await expect(message.getByRole('link', { name: 'Unsubscribe' })).toBeVisible()
          await expectNoAxeViolations(page)
          // The preview queued nothing: the oldest is still waiting.
          await page.getByLabel('Search addresses').fill(EMAILS[0] ?? '')
          await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('waiting')

          await panel.getByRole('button', { name: 'Send 3 invitations' }).click()
          await expect(
            panel.getByText(/^Queued 3 invitations; the server sends them at most 60 a minute\.$/),
          ).toBeVisible()
          await expect(panel.getByRole('heading', { name: '3 people will be invited' })).toBeHidden()
          await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('invited')
          await page.getByLabel('Search addresses').fill(EMAILS[3] ?? '')
          await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('waiting')
          expect(problems).toEqual([])
        })
    })
}
