import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, chromium } from '@playwright/test'
import { mailWords } from '../contract/site-config'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { startStudioProcess } from '../harness/studio-process'
import { startTestServer, type TestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { loadApiKeys } from '../server/auth/api-keys'
import { buildIfStale } from '../server/boot/build-if-stale'
import { linkKeys, sealAddress } from '../server/mail/messages/link-seals'
import { previewInvitation, previewSettings } from '../server/mail/messages/message-preview'
import { toCsv } from '../server/waitlist/admin/csv'

/**
 * Regenerates the pictures of docs/invitations.md: `npx tsx scripts/invitation-screenshots.ts`.
 *   docs/invitation-light.png, docs/invitation-dark.png  an invitation's HTML part, rendered by Chromium
 *     in each colour scheme (as a mail client that follows the system's does)
 *   docs/unsubscribe-light.png, docs/unsubscribe-dark.png  the page its unsubscribe link opens
 *   docs/studio-invite.png  the studio's "Invite the next N", its preview shown, nothing sent
 */
const SCHEMES = ['light', 'dark'] as const
const FROM = 'Tessel Labs <beta@tessel-labs.example>'
const NAMES = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'donald', 'frances', 'ken']

async function invitation(browser: Browser): Promise<void> {
  const message = {
    siteUrl: 'https://lab.example.com',
    betaUrl: mailWords.betaUrl,
    from: FROM,
    perMinute: 60,
  }
  const settings = {
    confirmSignups: false,
    messageDomain: 'tessel-labs.example',
    senderConfigured: true,
    message,
  }
  const { html } = previewInvitation(previewSettings(settings, { PORT: 3000 }), 'ada@example.com')
  for (const colorScheme of SCHEMES) {
    const page = await browser.newPage({ viewport: { width: 640, height: 720 }, colorScheme })
    await page.setContent(html)
    await page.screenshot({ path: `docs/invitation-${colorScheme}.png`, fullPage: true })
    await page.close()
    console.log(`Wrote docs/invitation-${colorScheme}.png`)
  }
}

async function unsubscribePage(browser: Browser, server: TestServer): Promise<void> {
  const keys = linkKeys((await loadApiKeys({ dataDir: server.dataDir, databaseUrl: undefined })).secret)
  const url = `${server.url}/unsubscribe?t=${sealAddress(keys.unsubscribe, 'ada@example.com')}`
  for (const colorScheme of SCHEMES) {
    const page = await browser.newPage({ viewport: { width: 800, height: 520 }, colorScheme })
    await page.goto(url)
    await page.screenshot({ path: `docs/unsubscribe-${colorScheme}.png` })
    await page.close()
    console.log(`Wrote docs/unsubscribe-${colorScheme}.png`)
  }
}

async function studioInvite(browser: Browser, server: TestServer, work: string): Promise<void> {
  const day = 86_400_000
  const rows = NAMES.map((name, i) => [
    `${name}@example.com`,
    new Date(Date.now() - (NAMES.length - i) * day).toISOString(),
  ])
  const file = join(work, 'sample.csv')
  await writeFile(file, toCsv(['email', 'created_at'], rows))
  const imported = await runCli(server.env, 'import', file)
  if (imported.code !== 0) throw new Error(imported.stderr)
  // The studio previews with the server's mail settings (its From); nothing is sent here.
  const studio = await startStudioProcess({ DATA_DIR: server.dataDir })
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } })
    await page.goto(studio.url)
    const panel = page.getByRole('region', { name: 'Invite the next N' })
    await panel.getByLabel('People to invite (oldest signups first)').fill('5')
    await panel.getByRole('button', { name: 'Preview' }).click()
    await page.frameLocator('iframe').getByRole('link', { name: 'Open the beta' }).waitFor()
    await panel.screenshot({ path: 'docs/studio-invite.png' })
    console.log('Wrote docs/studio-invite.png')
  } finally {
    await studio.stop()
  }
}

await buildIfStale(console.log)
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
const server = await startTestServer({ env: { SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: FROM } })
const work = await mkdtemp(join(tmpdir(), 'invitation-screenshots-'))
try {
  await invitation(browser)
  await unsubscribePage(browser, server)
  // The studio and the CLI hold the embedded cluster themselves: the server stops first.
  await server.stop()
  await studioInvite(browser, server, work)
} finally {
  await browser.close()
  await server.cleanup()
  await rm(work, { recursive: true, force: true })
}
