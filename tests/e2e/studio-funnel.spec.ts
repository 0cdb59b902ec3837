import { expect } from '@playwright/test'
import { type AgentDirectory, serveDirectory, signedHeaders } from '../../harness/signing-agent'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { runCli } from '../../harness/waitlist-cli'
import { ANN, API_SIGNUPS, FUNNEL_LIST_ENV, listWithAResend } from '../support/funnel-list'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { expectNoAxeViolations, workerTest as test, watchConsole } from './fixtures'

/**
 * The studio's Funnel panel and the CLI agree on one list with a resend in a second batch (issue
 * 51, item 1): the same window by default (the whole list), the same totals as `funnel --json` and
 * `funnel --by batch --json`, and as many joined as `count --status joined`. Two of the API's
 * signups are signed by an agent the server lists (issue 67): the Sources panel counts them as
 * `sources` does, and the list's Agent box finds them by the agent's name or origin.
 */
test.describe
  .serial('the studio’s funnel and the CLI', () => {
    let mail: MailTestServer
    let studio: StudioProcess
    let agent: AgentDirectory

    test.beforeAll(async () => {
      test.setTimeout(120_000)
      agent = await serveDirectory()
      mail = await startMailTestServer({ ...FUNNEL_LIST_ENV, SIGNATURE_AGENTS: `${agent.origin}=Test agent` })
      const rest = `${mail.server.url}/rest/v1/waitlist`
      await listWithAResend(mail, async (index) =>
        index < 2 ? signedHeaders(rest, { signatureAgent: `"${agent.origin}"` }) : {},
      )
      studio = await startStudioProcess(mail.server.env)
    })
    test.afterAll(async () => {
      await studio?.stop()
      await mail?.close()
      await agent?.close()
    })

    const json = async (...args: string[]) =>
      JSON.parse((await runCli(mail.server.env, ...args, '--json')).stdout)
    const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`)

    test('open on the whole list and count each person once, by source, by batch and by signed agent', async ({
      page,
    }) => {
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

      // Issue 67: the signed agent's signups in the Sources panel as in `sources`, and the Agent box.
      expect((await runCli(mail.server.env, 'sources', '--days', '30')).stdout).toMatch(
        /Test agent \(verified\)\s+2\n/,
      )
      const byAgent = page
        .getByRole('region', { name: /^Sources/ })
        .getByRole('list', { name: 'Signups by agent' })
      await expect(byAgent.getByRole('listitem')).toHaveText(['Test agent (verified)2 signups'])

      const list = page.getByRole('region', { name: 'Signups, newest first' })
      const addresses = list.getByRole('table').getByRole('button', { name: /@funnel\.example\.org$/ })
      await expect(addresses).toHaveCount(6)
      for (const name of ['test AGENT', agent.origin]) {
        await list.getByLabel('Agent, by name').fill(name)
        // The list follows the box a moment after typing stops, and the address with it.
        await expect.poll(() => new URL(page.url()).searchParams.getAll('agent')).toEqual([name])
        await expect(list.getByText('Page 1 of 1 · 2 matching')).toBeVisible()
        await expect(addresses).toHaveText(API_SIGNUPS.slice(0, 2).reverse())
      }
      await expect(list.getByRole('table').getByRole('button', { name: ANN })).toHaveCount(0)
      await expectNoAxeViolations(page)
      expect(problems).toEqual([])
    })
  })
