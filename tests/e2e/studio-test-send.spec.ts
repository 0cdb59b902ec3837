import { expect } from '@playwright/test'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { type LocalDns, startLocalDns } from '../support/local-dns'
import { domainInPlace } from '../support/mail-dns'
import { expectNoAxeViolations, workerTest as test } from './fixtures'

/**
 * The studio's "Send me a test", beside the preview: the running server sends it to the owner. The
 * sender's domain has SPF and MX but no DMARC (the test's DNS), so the preview's preflight fails
 * and holds the batch until the owner sends anyway (issue 66).
 */
test.describe('the studio’s test send', () => {
  let sink: SmtpSink
  let server: TestServer
  let studio: StudioProcess
  let dns: LocalDns
  test.beforeAll(async () => {
    sink = await startSmtpSink()
    const domain = domainInPlace('tessel-labs.org', 'unused', '')
    dns = await startLocalDns({ 'tessel-labs.org': domain['tessel-labs.org'] ?? {} })
    server = await startTestServer({
      env: {
        SMTP_URL: sink.url,
        MAIL_FROM: 'Tessel Labs <beta@tessel-labs.org>',
        MAIL_PER_MINUTE: '0',
        DNS_SERVERS: dns.server,
      },
    })
    expect((await postWaitlist(server, { email: 'first.waiting@example.com' })).status).toBe(201)
    studio = await startStudioProcess(server.env)
  })
  test.afterAll(async () => {
    await studio?.stop()
    await server?.cleanup()
    await sink?.close()
    await dns?.close()
  })

  test('"Send me a test" mails the previewed invitation to the owner and invites nobody; the preflight beside it holds the batch until the owner sends anyway', async ({
    page,
  }) => {
    await page.goto(studio.url)
    const panel = page.getByRole('region', { name: 'Invite the next N' })
    await panel.getByLabel('People to invite (newest first)').fill('1')
    await panel.getByRole('button', { name: 'Preview' }).click()
    const preflight = panel.getByRole('region', { name: 'Deliverability preflight' })
    await expect(preflight).toContainText('No preflight has run yet.')
    await preflight.getByRole('button', { name: 'Check again' }).click()
    await expect(preflight).toContainText(/Last preflight: failed at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/)
    const checks = preflight.getByRole('list', { name: 'Preflight checks' })
    await expect(checks.getByRole('listitem').filter({ hasText: /^DMARC fails/ })).toContainText(
      'Publish: TXT _dmarc.tessel-labs.org "v=DMARC1; p=none;',
    )
    await expect(checks.getByRole('listitem').filter({ hasText: /^SPF passes/ })).toContainText(
      'Read: v=spf1 ',
    )
    const owner = 'owner.e2e@lab.example'
    await panel.getByLabel('Your address, for a test').fill(owner)
    await panel.getByRole('button', { name: 'Send me a test' }).click()
    await expect(
      panel.getByText(`A test is queued for ${owner}; the running server sends it now.`, { exact: false }),
    ).toBeVisible()
    await sink.waitFor(() => sink.countFor(owner) === 1, 'the test message')
    const received = sink.received.find((m) => m.to.includes(owner))
    if (!received) throw new Error('no test message')
    const mail = await sink.parse(received)
    expect(mail.subject).toBe('Your invitation to the Tessel Labs private beta')
    await page.getByLabel('Search addresses').fill('first.waiting@example.com')
    await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('waiting')

    // The batch is held, with the failing checks; the owner's confirmation, cancelled, sends nothing.
    await panel.getByRole('button', { name: 'Send 1 invitation' }).click()
    await expect(panel.getByRole('alert')).toHaveText(
      'Nothing queued: the deliverability preflight does not pass, so no invitation was sent.',
    )
    await panel.getByRole('button', { name: 'Send anyway…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Send although the preflight fails?' })
    await expect(dialog).toContainText('Failing: DMARC')
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
    await expectNoAxeViolations(page)
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(dialog).toBeHidden()
    await panel.getByRole('button', { name: 'Send anyway…' }).click()
    await dialog.getByRole('button', { name: 'Send anyway' }).click()
    await expect(panel.getByText(/^Queued 1 invitation; the server sends them/)).toBeVisible()
    await sink.waitFor(() => sink.countFor('first.waiting@example.com') === 1, 'the invitation')
    await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('invited')
  })
})
