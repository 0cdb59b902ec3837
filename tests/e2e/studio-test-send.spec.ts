import { expect } from '@playwright/test'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { workerTest as test } from './fixtures'

/** The studio's "Send me a test", beside the preview: the running server sends it to the owner. */
test.describe('the studio’s test send', () => {
  let sink: SmtpSink
  let server: TestServer
  let studio: StudioProcess
  test.beforeAll(async () => {
    sink = await startSmtpSink()
    server = await startTestServer({
      env: { SMTP_URL: sink.url, MAIL_FROM: 'Tessel Labs <beta@tessel-labs.example>', MAIL_PER_MINUTE: '0' },
    })
    expect((await postWaitlist(server, { email: 'first.waiting@example.com' })).status).toBe(201)
    studio = await startStudioProcess(server.env)
  })
  test.afterAll(async () => {
    await studio?.stop()
    await server?.cleanup()
    await sink?.close()
  })

  test('"Send me a test" mails the previewed invitation to the owner and invites nobody', async ({
    page,
  }) => {
    await page.goto(studio.url)
    const panel = page.getByRole('region', { name: 'Invite the next N' })
    await panel.getByLabel('People to invite (newest first)').fill('1')
    await panel.getByRole('button', { name: 'Preview' }).click()
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
  })
})
