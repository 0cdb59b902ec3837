import type { Page } from '@playwright/test'
import { siteConfig } from '../../contract/site-config'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { OWN_PAGE_HOME } from '../../server/analytics/source-of'
import { loadApiKeys } from '../../server/auth/api-keys'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { expect, expectServerPageLook, test, uniqueEmail } from './fixtures'

/** An unsubscribe link for a new signup on this server, as an invitation carries it. */
async function unsubscribeUrl(server: TestServer): Promise<string> {
  const email = uniqueEmail('unsubscribe.page')
  expect((await postWaitlist(server, { email })).status).toBe(201)
  const keys = linkKeys((await loadApiKeys({ dataDir: server.dataDir, databaseUrl: undefined })).secret)
  return `${server.url}/unsubscribe?t=${sealAddress(keys.unsubscribe, email)}`
}

/** The site's header: the logo, loaded under the CSP, and the wordmark, linking home (as no visit: a person's own page). */
async function expectSiteHeader(page: Page): Promise<void> {
  const home = page.getByRole('banner').getByRole('link', { name: siteConfig.wordmark })
  await expect(home).toHaveAttribute('href', OWN_PAGE_HOME)
  const logo = home.getByRole('img', { name: siteConfig.logo.alt })
  await expect(logo).toHaveAttribute('src', siteConfig.logo.src)
  expect(await logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(
    true,
  )
}

test('the unsubscribe page has the site look in both schemes, passes axe and breaks no CSP rule', async ({
  browser,
  server,
}) => {
  await expectServerPageLook(browser, await unsubscribeUrl(server), 'Unsubscribe', expectSiteHeader)
})

test.describe('with no script at all', () => {
  test.use({ javaScriptEnabled: false })

  test('its one button POSTs and unsubscribes; a tampered link gets 400 and says so', async ({
    page,
    server,
    consoleLog,
  }) => {
    const url = await unsubscribeUrl(server)
    await page.goto(url)
    // The page the List-Unsubscribe address opens has no link to the person's data; its answer does.
    await expect(page.getByRole('link', { name: 'See, download or erase your data' })).toHaveCount(0)
    await page.getByRole('button', { name: 'Unsubscribe' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'You are unsubscribed' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'See, download or erase your data' })).toHaveAttribute(
      'href',
      /^\/your-data\?t=[\w-]+$/,
    )
    await expectSiteHeader(page)
    const tampered = url.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'))
    expect((await page.goto(tampered))?.status()).toBe(400)
    // The browser reports the 400 itself; that is the answer this test asks for.
    expect(consoleLog.expect(/status of 400/)).toBe(1)
    await expect(page.getByRole('heading', { level: 1, name: 'This link is not valid' })).toBeVisible()
  })
})
