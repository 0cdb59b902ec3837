import { expect } from '@playwright/test'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { runCli } from '../../harness/waitlist-cli'
import { FUNNEL_LIST_ENV, listWithAResend } from '../support/funnel-list'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { expectNoAxeViolations, workerTest as test, watchConsole } from './fixtures'

/**
 * The studio's Funnel panel and the CLI agree on one list with a resend in a second batch (issue
 * 51, item 1): the same window by default (the whole list), the same totals as `funnel --json` and
 * `funnel --by batch --json`, and as many joined as `count --status joined`.
 */
test.describe
  .serial('the studio’s funnel and the CLI', () => {
    let mail: MailTestServer
    let studio: StudioProcess

    test.beforeAll(async () => {
      test.setTimeout(120_000)
      mail = await startMailTestServer(FUNNEL_LIST_ENV)
      await listWithAResend(mail)
      studio = await startStudioProcess(mail.server.env)
    })
    test.afterAll(async () => {
      await studio?.stop()
      await mail?.close()
    })

    const json = async (...args: string[]) =>
      JSON.parse((await runCli(mail.server.env, ...args, '--json')).stdout)
    const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`)

    test('open on the whole list and count each person once, by source and by batch', async ({ page }) => {
      const problems = watchConsole(page)
      const bySource = await json('funnel')
      const byBatch = await json('funnel', '--by', 'batch')
      const joined = (await runCli(mail.server.env, 'count', '--status', 'joined')).stdout.trim()
      expect([bySource.window, byBatch.window]).toEqual(['all', 'all'])

      await page.goto(studio.url)
      const funnel = page.getByRole('region', { name: /^Funnel/ })
      await expect(funnel.getByRole('heading', { name: /the whole list/ })).toBeVisible()
      await expect(funnel.getByLabel('Window')).toHaveValue('all')
      const row = (name: RegExp) =>
        funnel.getByRole('listitem').filter({ hasText: name }).getByRole('definition')
      const { total } = bySource
      await expect(row(/^All sources/)).toHaveText([
        String(total.visits),
        `${total.signups}${percent(total.rates.signups)} of visits`,
        `${total.confirmed}${percent(total.rates.confirmed)} of signups`,
        `${total.invited}${percent(total.rates.invited)} of confirmed`,
        `${total.joined}${percent(total.rates.joined)} of invited`,
      ])
      await expect(row(/^All sources/)).toHaveText([
        '4',
        '675.0% of visits',
        '6100.0% of signups',
        '233.3% of confirmed',
        '150.0% of invited',
      ])
      // The API's signups: a row of their own, never a rate of visits.
      await expect(row(/^no visit counted/)).toHaveText([
        '–',
        '3– of visits',
        '3100.0% of signups',
        '00.0% of confirmed',
        '0– of invited',
      ])

      await funnel.getByRole('button', { name: 'By batch' }).click()
      await expect(row(/^All batches/)).toHaveText([
        String(byBatch.total.invited),
        `${joined}${percent(byBatch.total.rates.joined)} of invited`,
      ])
      await expect(row(/^All batches/)).toHaveText(['2', '150.0% of invited'])
      await expect(row(/^#2, /)).toHaveText(['1', '1100.0% of invited'])
      await expect(row(/^#1, /)).toHaveText(['1', '00.0% of invited'])

      // The CLI's other windows: the same list, all of it within 30 days.
      await funnel.getByLabel('Window').selectOption({ label: 'the last 30 days' })
      await expect(funnel.getByRole('heading', { name: /the last 30 days/ })).toBeVisible()
      await expect(row(/^All batches/)).toHaveText(['2', '150.0% of invited'])
      await expectNoAxeViolations(page)
      expect(problems).toEqual([])
    })
  })
