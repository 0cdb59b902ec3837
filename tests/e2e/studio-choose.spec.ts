import { expect } from '@playwright/test'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { addCohort, queuedInvitations } from '../support/studio-cohort'
import { expectNoAxeViolations, workerTest as test, tickFilter, watchConsole } from './fixtures'

/**
 * Issue 43 in the studio, as an owner chooses a cohort: filters by status, source and answers that
 * a reload keeps, the rows ticked invited through the same preview and queue (a real SMTP server
 * receives them), an entry's panel with its history, and the funnel under the sources.
 */

test.describe
  .serial('the studio chooses a cohort', () => {
    let mail: MailTestServer
    let studio: StudioProcess

    test.beforeAll(async () => {
      test.setTimeout(120_000)
      // MAIL_PER_MINUTE 0: as fast as the SMTP server takes them.
      mail = await startMailTestServer({ MAIL_PER_MINUTE: '0' })
      await addCohort(mail.server.env, mail.database.db)
      studio = await startStudioProcess(mail.server.env)
    })
    test.afterAll(async () => {
      await studio?.stop()
      await mail?.close()
    })

    test('filters by source and answers, with a count per status and of the matches; a reload keeps them', async ({
      page,
    }) => {
      const problems = watchConsole(page)
      await page.goto(studio.url)
      const list = page.getByRole('region', { name: 'Signups, newest first' })
      const rows = list.getByRole('table').getByRole('row')
      await expect(rows).toHaveCount(7)
      const statuses = list.getByRole('group', { name: /^Status/ })
      await expect(statuses.getByRole('checkbox', { name: 'waiting (5)' })).toBeVisible()
      await expect(statuses.getByRole('checkbox', { name: 'unsubscribed (1)' })).toBeVisible()

      await tickFilter(list, 'Source', 'launch-post')
      await tickFilter(list, 'Your role', 'Research')
      await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
      await expect(rows).toHaveCount(3)
      await expect(rows.nth(1)).toContainText('ed@example.com')
      await expect(rows.nth(2)).toContainText('ada@example.com')
      expect(new URL(page.url()).search).toBe('?source=launch-post&answer=role%3DResearch')
      await expectNoAxeViolations(page)

      await page.reload()
      await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
      await expect(list.getByRole('checkbox', { name: 'launch-post' })).toBeChecked()
      await expect(list.getByRole('checkbox', { name: 'Research' })).toBeChecked()
      await statuses.getByRole('checkbox', { name: /^waiting/ }).check()
      await expect(list.getByText('Page 1 of 1 · 1 matching')).toBeVisible()
      await expect(rows.nth(1)).toContainText('ada@example.com')

      // A text answer: contained, in any letter case.
      await page.goto(`${studio.origin}/`)
      await list.getByLabel('Organisation: contains').fill('acme')
      await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
      await expect(rows.nth(1)).toContainText('cy@example.com')
      await expect(rows.nth(2)).toContainText('bo@example.com')
      expect(new URL(page.url()).search).toBe('?answer=organisation%3Dacme')
      await list.getByLabel('Organisation: contains').fill('nobody')
      await expect(list.getByText('No entry matches the filters.')).toBeVisible()
      expect(problems).toEqual([])
    })

    test('invites the rows ticked after the same preview, as one batch; the server mails them', async ({
      page,
    }) => {
      const problems = watchConsole(page)
      await page.goto(studio.at('answer=role%3DResearch'))
      const list = page.getByRole('region', { name: 'Signups, newest first' })
      const selected = list.getByRole('region', { name: 'Invite selected' })
      await expect(selected.getByRole('button', { name: 'Invite selected' })).toBeDisabled()
      await selected.getByRole('checkbox', { name: 'All on this page' }).check()
      await expect(selected.getByText('3 selected', { exact: true })).toBeVisible()
      await list.getByRole('checkbox', { name: 'Select cy@example.com' }).uncheck()
      await expect(selected.getByText('2 selected', { exact: true })).toBeVisible()
      // Ticks are kept across filters: a cohort can be gathered from several.
      await list.getByRole('checkbox', { name: 'Research' }).uncheck()
      await list.getByRole('checkbox', { name: 'direct' }).check()
      await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
      await list.getByRole('checkbox', { name: 'Select cy@example.com' }).check()
      await selected.getByRole('button', { name: 'Invite 3 selected' }).click()

      await expect(
        selected.getByRole('heading', { name: '2 people will be invited, of 3 selected' }),
      ).toBeVisible()
      await expect(
        selected.getByRole('list', { name: 'Who will be invited' }).getByRole('listitem'),
      ).toHaveText(['ada@example.com', 'cy@example.com'])
      await expect(selected.getByRole('list', { name: 'Left alone' })).toContainText(
        'ed@example.com unsubscribed: no mail ever goes to it again',
      )
      await expect(selected).toContainText('Your invitation to the Tessel Labs private beta')
      const message = page.frameLocator('iframe[title="The invitation as it will look"]')
      await expect(message.getByRole('link', { name: 'Open the beta' })).toBeVisible()
      await expectNoAxeViolations(page)
      expect(await queuedInvitations(mail.database.db)).toEqual([])

      await selected.getByRole('button', { name: 'Send 2 invitations' }).click()
      await expect(
        selected.getByText(
          'Queued 2 invitations; the server sends them as fast as the mail server takes them. ' +
            '1 left alone (not waiting, or no longer on the list).',
        ),
      ).toBeVisible()
      await expect(selected.getByText('0 selected', { exact: true })).toBeVisible()
      const { sink } = mail
      await sink.waitFor(() => sink.received.length >= 2, 'two invitations')
      expect(sink.received.flatMap((received) => received.to).sort()).toEqual([
        'ada@example.com',
        'cy@example.com',
      ])
      expect(await queuedInvitations(mail.database.db)).toEqual([
        { email: 'ada@example.com', by: 'studio', chosenBy: '3 selected', size: 2 },
        { email: 'cy@example.com', by: 'studio', chosenBy: '3 selected', size: 2 },
      ])
      await expect(list.getByRole('row', { name: /cy@example\.com/ })).toContainText('invited')
      expect(problems).toEqual([])
    })

    test('opens an entry’s panel: status, source, answers, and its history oldest first', async ({
      page,
    }) => {
      const problems = watchConsole(page)
      await page.goto(studio.url)
      const address = page.getByRole('table').getByRole('button', { name: 'ada@example.com', exact: true })
      await address.click()
      const panel = page.getByRole('dialog', { name: 'ada@example.com' })
      await expect(panel).toContainText('Statusinvited')
      await expect(panel).toContainText('Sourcelaunch-post')
      await expect(panel).toContainText('Your roleResearch')
      await expect(panel).toContainText('OrganisationExample University')
      const history = panel.getByRole('listitem')
      await expect(history.first()).toHaveText('2024-11-01 09:00:00 UTCsigned up (from launch-post)')
      await expect(history.filter({ hasText: /invited \(batch \d+\)/ })).toHaveCount(1)
      await expect(history.filter({ hasText: 'invitation message: sent' })).toHaveCount(1)
      await expectNoAxeViolations(page)
      await page.keyboard.press('Escape')
      await expect(panel).toBeHidden()
      await expect(address).toBeFocused()
      expect(problems).toEqual([])
    })

    test('shows the funnel under the sources, by source and by batch', async ({ page }) => {
      await page.goto(studio.url)
      const funnel = page.getByRole('region', { name: /^Funnel/ })
      // Visits, signups, confirmed, invited, joined: each with its rate of the step before.
      const launch = funnel.getByRole('listitem').filter({ hasText: 'launch-post' })
      await expect(launch.getByRole('definition')).toHaveText([
        '0',
        '3– of visits',
        '3100.0% of signups',
        '133.3% of confirmed',
        '00.0% of invited',
      ])
      await funnel.getByRole('button', { name: 'By batch' }).click()
      await expect(funnel.getByRole('button', { name: 'By batch' })).toHaveAttribute('aria-pressed', 'true')
      const batch = funnel.getByRole('listitem').filter({ hasText: 'studio: 3 selected' })
      await expect(batch.getByRole('definition')).toHaveText(['2', '00.0% of invited'])
      await expectNoAxeViolations(page)
    })
  })
