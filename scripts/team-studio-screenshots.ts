import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { freePort } from '../harness/postgres-cluster'
import { startTestServer } from '../harness/test-server'
import { addVirtualAuthenticator } from '../harness/virtual-authenticator'
import { runCli } from '../harness/waitlist-cli'
import { buildIfStale } from '../server/boot/build-if-stale'

/**
 * Regenerates docs/team-studio-sign-in.png and docs/team-studio-activity.png, the team studio's
 * pictures in docs/team-studio.md, 1280 px wide in the light scheme: an owner and a member enrolled
 * by the CLI's links with Chromium's virtual authenticator, a few changes made, the sign-in page as
 * a signed-out browser sees it, and the Activity page after a sign-in and a refused one. `npx tsx scripts/team-studio-screenshots.ts`.
 */
const cli = async (env: Record<string, string>, ...args: string[]) => {
  const result = await runCli(env, ...args)
  if (result.code !== 0) throw new Error(result.stderr)
  return result.stdout
}
const linkIn = (text: string) => /(http:\/\/\S+\/studio\/enrol#\S+)/.exec(text)?.[1] ?? ''

await buildIfStale(console.log)
const port = await freePort()
const site = `http://localhost:${port}`
const server = await startTestServer({ env: { PORT: String(port), SITE_URL: site } })
const work = await mkdtemp(join(tmpdir(), 'team-studio-screenshots-'))
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
try {
  const file = join(work, 'list.csv')
  const names = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'donald', 'radia', 'leslie']
  await writeFile(file, `email\n${names.map((name) => `${name}@example.com`).join('\n')}\n`)
  await cli(server.env, 'import', file)
  const owner = linkIn(await cli(server.env, 'team', 'add', 'lena@tessel-labs.com', '--role', 'owner'))
  const member = linkIn(await cli(server.env, 'team', 'add', 'omar@tessel-labs.com', '--role', 'member'))
  await cli(server.env, 'team', 'add', 'iris@tessel-labs.com', '--role', 'viewer')

  const options = { viewport: { width: 1280, height: 800 }, colorScheme: 'light' as const, baseURL: site }
  const omar = await browser.newContext(options)
  const omarPage = await omar.newPage()
  await addVirtualAuthenticator(omar, omarPage)
  await omarPage.goto(member)
  await omarPage.getByRole('button', { name: 'Create a passkey' }).click()
  await omarPage.waitForURL(`${site}/studio/`)
  await omarPage.getByRole('button', { name: 'Invite' }).first().waitFor()
  const queued = await omarPage.request.post('/studio/api/invite', {
    headers: { Origin: site, 'Content-Type': 'application/json' },
    data: { count: 3 },
  })
  if (!queued.ok()) throw new Error(await queued.text())

  const lena = await browser.newContext(options)
  const lenaPage = await lena.newPage()
  const authenticator = await addVirtualAuthenticator(lena, lenaPage)
  await lenaPage.goto(owner)
  await lenaPage.getByRole('button', { name: 'Create a passkey' }).click()
  await lenaPage.waitForURL(`${site}/studio/`)
  await cli(server.env, 'export', '--out', join(work, 'export.csv'))

  // Signed out, with the passkey on the device: the page as the owner sees it before signing in.
  const fresh = await browser.newContext(options)
  const freshPage = await fresh.newPage()
  const presence = await addVirtualAuthenticator(fresh, freshPage, await authenticator.credentials(), true)
  await freshPage.goto('/studio/')
  await freshPage.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
  await freshPage.screenshot({ path: 'docs/team-studio-sign-in.png' })
  console.log('Wrote docs/team-studio-sign-in.png')

  // She signs in there; then a copy of her passkey as it was before (an older signature count: a
  // clone) is refused, so the record shows a sign-in and a failed one.
  await presence.touch()
  await freshPage.getByRole('button', { name: 'Sign in with a passkey' }).click()
  await freshPage.waitForURL(`${site}/studio/`)
  const clone = await browser.newContext(options)
  const clonePage = await clone.newPage()
  await addVirtualAuthenticator(clone, clonePage, await authenticator.credentials())
  await clonePage.goto('/studio/sign-in')
  await clonePage.getByRole('alert').waitFor()

  await freshPage.goto('/studio/activity')
  await freshPage.getByRole('cell', { name: 'omar@tessel-labs.com' }).first().waitFor()
  await freshPage.screenshot({ path: 'docs/team-studio-activity.png', fullPage: true })
  console.log('Wrote docs/team-studio-activity.png')
} finally {
  await browser.close()
  await server.cleanup()
  await rm(work, { recursive: true, force: true })
}
