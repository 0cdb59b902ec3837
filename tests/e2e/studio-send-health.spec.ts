import { expect } from '@playwright/test'
import { withServerDatabase } from '../../harness/server-database'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { workerTest as test } from './fixtures'

/** The studio's pause banner names the paused lane: confirmations are judged apart from invitations. */
test.describe('the studio’s send health banner', () => {
  let server: TestServer
  let studio: StudioProcess
  test.beforeAll(async () => {
    server = await startTestServer()
    studio = await startStudioProcess(server.env)
  })
  test.afterAll(async () => {
    await studio?.stop()
    await server?.cleanup()
  })

  test('says the confirmations are paused, not the invitations, and resumes them', async ({ page }) => {
    await withServerDatabase(server, (db) =>
      db.query(
        `update private.mail_health set paused_at = now(),
                pause_reason = 'hard bounces are 25.0% of the last 20 messages (5), past MAIL_PAUSE_BOUNCE_RATE 0.05'
          where lane = 0`,
      ),
    )
    await page.goto(studio.url)
    const banner = page.getByRole('alert')
    await expect(banner.getByRole('heading', { name: 'Confirmations are paused' })).toBeVisible()
    await expect(banner).toContainText('hard bounces are 25.0% of the last 20 messages (5)')
    await expect(banner.getByRole('heading', { name: 'Invitations are paused' })).toHaveCount(0)

    await banner.getByRole('button', { name: 'Resume sending' }).click()
    await expect(page.getByRole('heading', { name: 'Confirmations are paused' })).toHaveCount(0)
    expect((await runCli(server.env, 'deliveries')).stdout).not.toContain('are paused since')
  })
})
