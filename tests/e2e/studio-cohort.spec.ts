import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { TEST_BETA_URL } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { expectNoAxeViolations, workerTest as test, watchConsole } from './fixtures'

/**
 * Issue 50 in the studio, as a lab's operations lead chooses ten researchers: the people side by
 * side in a table (a column per question), sorted by organisation with `aria-sort`, a column hidden
 * and kept, rows tagged with "Tag selected" and the list narrowed by the tag and a domain, "Invite
 * the next N" of only what the filters match (a real SMTP server receives them), and an entry's
 * note and Remove in its panel.
 */
const LAB_SHEET = [
  'email,created_at,role,organisation,use_case',
  'percy@cs.stanford.edu,2024-09-01,Research,Stanford,Agents that plan long multi-step experiments across days of lab work',
  'ann@stanford.edu,2024-09-02,Research,Bletchley Park,',
  'bo@mit.edu,2024-09-03,Engineering,MIT,',
  'cat@notedu.com,2024-09-04,Research,Acme,',
  'dan@ox.ac.uk,2024-09-05,Research,Oxford,',
  'eve@example.com,2024-09-06,Product,Zeta Labs,',
]

test.describe
  .serial('the studio chooses a cohort from a table of people', () => {
    let mail: MailTestServer
    let studio: StudioProcess
    let scratch: string

    test.beforeAll(async () => {
      test.setTimeout(120_000)
      mail = await startMailTestServer({ MAIL_PER_MINUTE: '0', BETA_URL: TEST_BETA_URL })
      scratch = await mkdtemp(join(tmpdir(), 'studio-cohort-'))
      const file = join(scratch, 'lab.csv')
      await writeFile(file, `${LAB_SHEET.join('\n')}\n`)
      const imported = await runCli(mail.server.env, 'import', file)
      if (imported.code !== 0) throw new Error(imported.stderr)
      studio = await startStudioProcess(mail.server.env)
    })
    test.afterAll(async () => {
      await studio?.stop()
      await mail?.close()
      await rm(scratch, { recursive: true, force: true })
    })

    test('shows the people side by side, sorts by any column both ways, and hides a column for good', async ({
      page,
    }) => {
      const problems = watchConsole(page)
      await page.goto(studio.url)
      await expect(page.getByRole('region', { name: 'Signups, newest first' })).toBeVisible()
      // The list's heading, and so its region's name, follows the order: the table is the page's one.
      const table = page.getByRole('table')
      await expect(table.getByRole('columnheader')).toHaveText([
        'Selected',
        /^Address/,
        /^Name/,
        /^Signed up/,
        /^Status/,
        /^Source/,
        /^Agent/,
        /^Your role/,
        /^Organisation/,
        /^Use case/,
        /^Tags/,
        /^Batch/,
        /^Joined/,
      ])
      const rows = table.getByRole('row')
      await expect(rows.nth(1)).toContainText('eve@example.com')
      await expect(rows.nth(1)).toContainText('Zeta Labs')
      // A long answer is cut, and whole on hover.
      const long = table.getByTitle(/^Agents that plan long multi-step experiments/)
      await expect(long).toBeVisible()
      expect(await long.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true)

      const organisation = table.getByRole('columnheader', { name: /^Organisation/ })
      await expect(organisation).toHaveAttribute('aria-sort', 'none')
      await organisation.getByRole('button').click()
      const sorted = page.getByRole('region', { name: 'Signups by organisation, A to Z' })
      await expect(sorted).toBeVisible()
      await expect(organisation).toHaveAttribute('aria-sort', 'ascending')
      const addresses = table.getByRole('row').locator('td:nth-child(2)')
      await expect(addresses).toHaveText([
        'cat@notedu.com',
        'ann@stanford.edu',
        'bo@mit.edu',
        'dan@ox.ac.uk',
        'percy@cs.stanford.edu',
        'eve@example.com',
      ])
      await organisation.getByRole('button').click()
      await expect(organisation).toHaveAttribute('aria-sort', 'descending')
      await expect(addresses.first()).toHaveText('eve@example.com')
      expect(new URL(page.url()).search).toBe('?sort=answer_organisation&order=desc')
      await expectNoAxeViolations(page)

      // The order is kept in the address; the columns hidden, in the browser.
      await page.locator('summary', { hasText: 'Columns shown' }).click()
      await page
        .getByRole('group', { name: 'Columns shown' })
        .getByRole('checkbox', { name: 'Source' })
        .uncheck()
      await expect(table.getByRole('columnheader', { name: /^Source/ })).toHaveCount(0)
      await page.reload()
      await expect(page.getByRole('region', { name: 'Signups by organisation, Z to A' })).toBeVisible()
      await expect(table.getByRole('columnheader', { name: /^Organisation/ })).toHaveAttribute(
        'aria-sort',
        'descending',
      )
      await expect(page.getByRole('table').getByRole('columnheader', { name: /^Source/ })).toHaveCount(0)
      expect(problems).toEqual([])
    })

    test('tags the rows ticked, then narrows the list by the tag and by a domain with its subdomains', async ({
      page,
    }) => {
      const problems = watchConsole(page)
      await page.goto(studio.url)
      const list = page.getByRole('region', { name: /^Signups/ })
      for (const email of ['percy@cs.stanford.edu', 'ann@stanford.edu', 'bo@mit.edu', 'dan@ox.ac.uk'])
        await list.getByRole('checkbox', { name: `Select ${email}` }).check()
      const tagging = list.getByRole('region', { name: 'Tag selected' })
      await tagging.getByLabel(/^Tag/).fill('Shortlist')
      await tagging.getByRole('button', { name: 'Tag 4 selected' }).click()
      await expect(tagging.getByText('Tagged 4 entries shortlist.')).toBeVisible()
      await list.getByRole('checkbox', { name: 'Select dan@ox.ac.uk' }).uncheck()
      await tagging.getByLabel(/^Tag/).fill('partner')
      await tagging.getByRole('button', { name: 'Tag 3 selected' }).click()
      await expect(tagging.getByText('Tagged 3 entries partner.')).toBeVisible()
      await expect(list.getByRole('row', { name: /percy@cs\.stanford\.edu/ })).toContainText(
        'partnershortlist',
      )

      const tags = list.getByRole('group', { name: /^Tags/ })
      await tags.getByRole('checkbox', { name: 'shortlist (4)' }).check()
      await expect(list.getByText('Page 1 of 1 · 4 matching')).toBeVisible()
      await list.getByLabel('Domain, with its subdomains').fill('edu')
      await expect(list.getByText('Page 1 of 1 · 3 matching')).toBeVisible()
      await list.getByLabel('Domain, with its subdomains').fill('stanford.edu')
      await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
      expect(new URL(page.url()).search).toBe('?domain=stanford.edu&tag=shortlist')
      await expectNoAxeViolations(page)
      expect(problems).toEqual([])
    })

    test('invites the next N of the people the filters show, and mails only them', async ({ page }) => {
      const problems = watchConsole(page)
      await page.goto(studio.at('answer=role%3DResearch&tag=shortlist&sort=created_at&order=asc'))
      const list = page.getByRole('region', { name: /^Signups/ })
      await expect(list.getByText('Page 1 of 1 · 3 matching')).toBeVisible()
      const panel = list.getByRole('region', { name: 'Invite the next N' })
      await panel.getByLabel('People to invite (the first of the 3 shown, oldest first)').fill('10')
      await panel.getByRole('button', { name: 'Preview' }).click()
      await expect(
        panel.getByRole('heading', {
          name: '3 people will be invited: the next 3 of the 3 shown, oldest first',
        }),
      ).toBeVisible()
      await expect(panel.getByRole('list', { name: 'Who will be invited' }).getByRole('listitem')).toHaveText(
        ['percy@cs.stanford.edu', 'ann@stanford.edu', 'dan@ox.ac.uk'],
      )
      await expectNoAxeViolations(page)
      await panel.getByRole('button', { name: 'Send 3 invitations' }).click()
      await expect(panel.getByText(/^Queued 3 invitations/)).toBeVisible()
      const { sink } = mail
      await sink.waitFor(() => sink.received.length >= 3, 'three invitations')
      expect(sink.received.flatMap((received) => received.to).sort()).toEqual([
        'ann@stanford.edu',
        'dan@ox.ac.uk',
        'percy@cs.stanford.edu',
      ])
      // The batch the table shows is the one the funnel names.
      const funnel = JSON.parse((await runCli(mail.server.env, 'funnel', '--by', 'batch', '--json')).stdout)
      const [batch] = funnel.rows
      expect(batch.batch.chosenBy).toBe('next 3 --answer role=Research --tag shortlist --sort created_at')
      await expect(list.getByRole('row', { name: /ann@stanford\.edu/ })).toContainText(
        `shortlist${batch.batch.id}`,
      )
      // Another look at the same filters finds nobody left to invite; the rest were never asked for.
      await panel.getByRole('button', { name: 'Preview' }).click()
      await expect(panel.getByRole('heading', { name: /^0 people will be invited/ })).toBeVisible()
      expect(problems).toEqual([])
    })

    test('writes the team’s note in the entry’s panel, then removes the entry from there', async ({
      page,
    }) => {
      const problems = watchConsole(page)
      await page.goto(studio.url)
      const address = page.getByRole('table').getByRole('button', { name: 'eve@example.com', exact: true })
      await address.click()
      const panel = page.getByRole('dialog', { name: 'eve@example.com' })
      await expect(panel).toContainText('Organisation')
      await panel.getByLabel("The team's note").fill('Met at NeurIPS; ask about the agents track')
      await panel.getByRole('button', { name: 'Save note' }).click()
      await expect(panel.getByText('Note saved.')).toBeVisible()
      await expect(panel.getByRole('listitem').filter({ hasText: 'note written' })).toHaveCount(1)
      await expectNoAxeViolations(page)
      await page.keyboard.press('Escape')
      await expect(panel).toBeHidden()
      await address.click()
      await expect(panel.getByLabel("The team's note")).toHaveValue(
        'Met at NeurIPS; ask about the agents track',
      )
      const shown = JSON.parse((await runCli(mail.server.env, 'show', 'eve@example.com', '--json')).stdout)
      expect(shown.note).toBe('Met at NeurIPS; ask about the agents track')

      await panel.getByRole('button', { name: 'Remove eve@example.com' }).click()
      const dialog = page.getByRole('dialog', { name: 'Remove this address?' })
      await dialog.getByRole('button', { name: 'Remove' }).click()
      await expect(page.getByRole('status').filter({ hasText: 'Removed' })).toHaveText(
        'Removed eve@example.com.',
      )
      await expect(panel).toBeHidden()
      await expect(page.getByRole('table')).not.toContainText('eve@example.com')
      expect((await runCli(mail.server.env, 'show', 'eve@example.com')).code).toBe(1)
      expect(problems).toEqual([])
    })
  })
