import { readFile } from 'node:fs/promises'
import { requestAccessTool } from '../../contract/agent-tool'
import { formWords } from '../../contract/form-words'
import { mailWords } from '../../contract/site-config'
import { startStudioProcess } from '../../harness/studio-process'
import type { TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import {
  callPageTool,
  expect,
  expectServerPageLook,
  offerModelContext,
  test,
  toasts,
  uniqueEmail,
} from './fixtures'

/**
 * Issue 53 in Chromium: a signup on the page and one by the page's WebMCP tool leave the consent
 * record their door names (read back with the owner's CLI), and the person's own page, with no
 * script at all, shows the entry, downloads it and erases it after asking once more.
 */
const words = mailWords.pages.yourData

async function consentOf(server: TestServer, email: string) {
  const shown = await runCli(server.env, 'show', email, '--json')
  expect(shown.code, shown.stderr).toBe(0)
  return JSON.parse(shown.stdout).consent
}

test('a signup on the page records door page, with the form’s words and no agent', async ({
  page,
  server,
}) => {
  const email = uniqueEmail('consent.page')
  await page.goto('/')
  await page.getByPlaceholder(formWords.placeholder).fill(email)
  await page.getByRole('button', { name: formWords.button }).click()
  await expect(toasts(page).getByText('Request submitted!').first()).toBeVisible()
  const consent = await consentOf(server, email)
  expect(consent).toMatchObject({ door: 'page', agent: null, network: '127.0.0.0/24' })
  expect(consent.words.text).toContain(`Field label: ${formWords.label}`)
  expect(consent.words.text).toContain(`Button: ${formWords.button}`)
})

test('a signup by the page’s WebMCP tool records door webmcp and the tool’s words', async ({
  page,
  server,
}) => {
  await offerModelContext(page)
  const email = uniqueEmail('consent.webmcp')
  await page.goto('/')
  const result = await callPageTool(page, requestAccessTool.name, { email })
  expect(result).toMatchObject({ status: 'submitted' })
  const consent = await consentOf(server, email)
  expect(consent).toMatchObject({ door: 'webmcp', agent: { name: 'webmcp', verified: false } })
  expect(consent.words.text).toContain(requestAccessTool.description)
})

/** A signup by the no-script form, and the link to its person's own page. */
async function signedUpByForm(server: TestServer, email: string): Promise<string> {
  const posted = await fetch(`${server.url}/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: server.url },
    body: new URLSearchParams({ email }),
  })
  expect(posted.headers.get('location')).toBe('/?waitlist=submitted')
  return `${server.url}/your-data?t=${sealAddress(linkKeys(server.secret).yourData, email)}`
}

test('the person’s own page has the site look in both schemes and passes axe', async ({
  browser,
  server,
}) => {
  await expectServerPageLook(browser, await signedUpByForm(server, uniqueEmail('consent.look')), words.title)
})

test.describe('the person’s own page, with no script at all', () => {
  test.use({ javaScriptEnabled: false })

  test('shows the entry, downloads it, and erases it after asking again', async ({ page, server }) => {
    const email = uniqueEmail('consent.person')
    const url = await signedUpByForm(server, email)
    await page.goto(url)
    for (const heading of [words.entry, words.answers, words.consent, words.history])
      await expect(page.getByRole('heading', { level: 2, name: heading })).toBeVisible()
    await expect(page.getByText(words.doors.form, { exact: true })).toBeVisible()

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: words.download }).click(),
    ])
    const data = JSON.parse(await readFile((await download.path()) ?? '', 'utf8'))
    expect(data).toMatchObject({ email, status: 'waiting', consent: { door: 'form' } })

    await page.getByRole('button', { name: words.erase }).click()
    await expect(page.getByRole('heading', { level: 1, name: words.confirmTitle })).toBeVisible()
    expect((await runCli(server.env, 'show', email)).code, 'asking erases nothing').toBe(0)
    await page.getByRole('button', { name: words.confirmButton }).click()
    await expect(page.getByRole('heading', { level: 1, name: words.erased })).toBeVisible()
    expect((await runCli(server.env, 'show', email)).code).toBe(1)
    await page.goto(url)
    await expect(page.getByRole('heading', { level: 1, name: words.notListed })).toBeVisible()
  })
})

test('the studio’s entry panel shows the consent record as `show` gives it', async ({ browser, server }) => {
  const email = uniqueEmail('consent.studio')
  await signedUpByForm(server, email)
  const consent = await consentOf(server, email)
  const studio = await startStudioProcess({
    DATA_DIR: server.dataDir,
    DATABASE_URL: server.env.DATABASE_URL ?? '',
  })
  // A page of its own: the fixture's waits for the home page's hydration.
  const context = await browser.newContext()
  const page = await context.newPage()
  try {
    await page.goto(studio.url)
    await page.getByLabel('Search addresses').fill(email)
    await page.getByRole('button', { name: email, exact: true }).click()
    const panel = page.getByRole('dialog', { name: email })
    await expect(panel.getByRole('heading', { name: 'Consent', exact: true })).toBeVisible()
    await expect(panel).toContainText(`${consent.at.slice(0, 19).replace('T', ' ')} UTC through form`)
    await expect(panel).toContainText(`version ${consent.words.version}`)
    await expect(panel).toContainText(`Button: ${formWords.button}`)
    await expect(panel).toContainText('127.0.0.0/24')
    await expect(panel).toContainText('not confirmed')
  } finally {
    await context.close()
    expect(await studio.stop()).toBe(0)
  }
})
