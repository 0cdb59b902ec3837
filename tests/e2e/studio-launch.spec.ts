import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import { mailWords } from '../../contract/site-config'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { expectNoAxeViolations, workerTest as test, watchConsole } from './fixtures'

/**
 * Issue 41, in the studio, as a lab meets it on its first launch: a list imported with statuses, a
 * server whose BETA_URL was never set (the site config's placeholder link), a preview that used to
 * stay blank for a second and a half on a distant database, a test send to someone who had
 * unsubscribed.
 */
const LIST = [
  ['ada.waiting@example.com', 'waiting'],
  ['bo.waiting@example.com', 'waiting'],
  ['cy.waiting@example.com', 'waiting'],
  ['di.invited@example.com', 'invited'],
  ['ed.invited@example.com', 'invited'],
  ['fay.bounced@example.com', 'bounced'],
  ['gus.bounced@example.com', 'bounced'],
  ['hal.complained@example.com', 'complained'],
  ['ivy.unsubscribed@example.com', 'unsubscribed'],
] as const

test.describe('the studio on a first launch', () => {
  let server: TestServer
  let studio: StudioProcess

  test.beforeAll(async () => {
    // BETA_URL empty is unset: the placeholder link. No SMTP_URL: tests wait in the queue.
    server = await startTestServer({ env: { BETA_URL: '' } })
    const scratch = await mkdtemp(join(tmpdir(), 'studio-launch-'))
    const file = join(scratch, 'list.csv')
    await writeFile(file, `email,status\n${LIST.map((entry) => entry.join(',')).join('\n')}\n`)
    expect((await runCli(server.env, 'import', file)).code).toBe(0)
    await rm(scratch, { recursive: true })
    studio = await startStudioProcess(server.env)
  })
  test.afterAll(async () => {
    await studio?.stop()
    await server?.cleanup()
  })

  test('counts each status, and narrows the list to the statuses ticked', async ({ page }) => {
    const problems = watchConsole(page)
    await page.goto(studio.url)
    const list = page.getByRole('region', { name: 'Signups, newest first' })
    const rows = list.getByRole('table').getByRole('row')
    await expect(rows).toHaveCount(LIST.length + 1)
    const filter = list.getByRole('group', { name: /^Status/ })
    for (const [status, count] of [
      ['waiting', 3],
      ['invited', 2],
      ['bounced', 2],
      ['complained', 1],
      ['unsubscribed', 1],
      ['unconfirmed', 0],
    ] as const)
      await expect(filter.getByRole('checkbox', { name: `${status} (${count})` })).toBeVisible()

    await filter.getByRole('checkbox', { name: /^bounced/ }).check()
    await expect(rows).toHaveCount(3)
    await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
    await filter.getByRole('checkbox', { name: /^complained/ }).check()
    await expect(rows).toHaveCount(4)
    await expect(list.getByRole('table')).toContainText('hal.complained@example.com')
    await expect(list.getByRole('table')).not.toContainText('waiting@example.com')
    await list.getByLabel('Search addresses').fill('gus')
    await expect(rows).toHaveCount(2)
    await expect(rows.nth(1)).toContainText('gus.bounced@example.com')
    // Under the box, the rule of a short search: the start of an address or of its domain.
    await expect(list.getByLabel('Search addresses')).toHaveAccessibleDescription(
      'One or two characters find addresses or domains that start with them; more find them anywhere.',
    )
    await list.getByLabel('Search addresses').fill('gu')
    await expect(rows).toHaveCount(2)
    await list.getByLabel('Search addresses').fill('')
    await filter.getByRole('checkbox', { name: /^unconfirmed/ }).check()
    await filter.getByRole('checkbox', { name: /^bounced/ }).uncheck()
    await filter.getByRole('checkbox', { name: /^complained/ }).uncheck()
    await expect(list.getByText('No entry has the statuses ticked.')).toBeVisible()
    await filter.getByRole('checkbox', { name: /^unconfirmed/ }).uncheck()
    await expect(rows).toHaveCount(LIST.length + 1)
    await expectNoAxeViolations(page)
    expect(problems).toEqual([])
  })

  test('the preview says at once it is coming and loads its frame meanwhile; the placeholder link sends nothing', async ({
    page,
  }) => {
    const problems = watchConsole(page)
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    // The figures held back, as a distant database would: the rest of the panel must not wait for them.
    await page.route('**/api/invite/preview?*', async (route) => {
      await held
      await route.continue()
    })
    await page.goto(studio.url)
    const panel = page.getByRole('region', { name: 'Invite the next N' })
    await panel.getByLabel('People to invite (newest first)').fill('3')
    const frameAsked = page.waitForRequest('**/invite-preview.html')
    await panel.getByRole('button', { name: 'Preview' }).click()
    await expect(panel.getByText('Preparing the preview…')).toBeVisible()
    await frameAsked
    const message = page.frameLocator('iframe[title="The invitation as it will look"]')
    await expect(message.getByRole('link', { name: 'Open the beta' })).toBeVisible()
    release()

    await expect(panel.getByRole('heading', { name: '3 people will be invited' })).toBeVisible()
    await expect(panel.getByText('Preparing the preview…')).toBeHidden()
    await expect(
      panel.getByText(`The beta link ${mailWords.betaUrl} is a placeholder (a reserved example name)`),
    ).toBeVisible()
    await expect(panel.getByRole('button', { name: 'Send 3 invitations' })).toBeDisabled()
    await expectNoAxeViolations(page)
    expect(problems).toEqual([])
  })

  test('a test send to an address that unsubscribed is refused in the CLI’s words; another goes, saying the link is a placeholder', async ({
    page,
  }) => {
    await page.goto(studio.url)
    const panel = page.getByRole('region', { name: 'Invite the next N' })
    await panel.getByRole('button', { name: 'Preview' }).click()
    const address = panel.getByLabel('Your address, for a test')
    await address.fill('ivy.unsubscribed@example.com')
    await panel.getByRole('button', { name: 'Send me a test' }).click()
    await expect(panel.getByRole('alert')).toHaveText(
      'No test sent: ivy.unsubscribed@example.com is unsubscribed on the waitlist, and no mail ever goes to ' +
        'an address that unsubscribed, complained or bounced. Send the test to another address.',
    )
    await address.fill('owner@lab.example')
    await panel.getByRole('button', { name: 'Send me a test' }).click()
    await expect(
      panel.getByText(/^A test is queued for owner@lab\.example; it goes once a server/),
    ).toContainText(`The beta link ${mailWords.betaUrl} is a placeholder`)
    await expect(panel.getByRole('alert')).toBeHidden()
  })
})
