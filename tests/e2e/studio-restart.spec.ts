import { expect } from '@playwright/test'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { workerTest as test } from './fixtures'

// A studio page left open while the site restarts: a plain line, not an error, then the list again.
test('the studio page says the site is stopped, then comes back with it by itself', async ({ page }) => {
  test.setTimeout(120_000)
  let server: TestServer | undefined = await startTestServer()
  let studio: StudioProcess | undefined
  const dataDir = server.dataDir
  try {
    expect((await postWaitlist(server, { email: 'left.open@example.com' })).status).toBe(201)
    studio = await startStudioProcess({ DATA_DIR: dataDir })
    await page.goto(studio.url)
    await expect(page.getByText('1 address on the waitlist')).toBeVisible()

    await server.stop()
    // Any read shows it: here, a search.
    await page.getByLabel('Search addresses').fill('left')
    const stopped = page.getByText(
      'The site is stopped: start it (npm start) and the studio reconnects by itself.',
    )
    await expect(stopped).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)

    server = await startTestServer({ dataDir })
    await expect(stopped).toBeHidden({ timeout: 30_000 })
    // Everything read afresh: the search made while stopped now has its answer.
    await expect(page.getByRole('table').getByRole('row').nth(1)).toContainText('left.open@example.com')
    await expect(page.getByText('1 address on the waitlist')).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)
  } finally {
    await studio?.stop()
    await server?.cleanup()
  }
})
