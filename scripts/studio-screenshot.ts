import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { startStudioProcess } from '../harness/studio-process'
import { startTestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { toCsv } from '../owner/cli/csv'
import { buildIfStale } from '../server/boot/build-if-stale'

/** Regenerates docs/studio.png, the studio's picture in docs/operations.md: `npx tsx scripts/studio-screenshot.ts`. */
const NAMES = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'donald', 'frances', 'ken', 'radia', 'leslie']
const DOMAINS = ['example.com', 'example.org', 'uni.example.edu']

await buildIfStale(console.log)
// Running: the studio reads the running server's database (it never starts the cluster itself).
const server = await startTestServer()
const work = await mkdtemp(join(tmpdir(), 'studio-screenshot-'))
try {
  // Sample signups over the last 30 days, more of them lately, the same on every run.
  const rows: string[][] = []
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate())
  for (let day = 29; day >= 0; day--) {
    const count = Math.round(((30 - day) / 30) * 5 + ((day * 7) % 3))
    for (let n = 0; n < count; n++) {
      const name = NAMES[(day + n) % NAMES.length]
      const domain = DOMAINS[(day * 3 + n) % DOMAINS.length]
      const created = new Date(today - day * 86_400_000 + (1 + n) * 3_600_000 + day * 61_000)
      rows.push([`${name}.${30 - day}${n}@${domain}`, created.toISOString()])
    }
  }
  const file = join(work, 'sample.csv')
  await writeFile(file, toCsv(['email', 'created_at'], rows))
  const imported = await runCli(server.env, 'import', file)
  if (imported.code !== 0) throw new Error(imported.stderr)
  const studio = await startStudioProcess(server.env)
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    await page.goto(studio.url)
    await page.getByRole('table').waitFor()
    await page.screenshot({ path: 'docs/studio.png' })
    console.log(`Wrote docs/studio.png (${rows.length} sample signups)`)
  } finally {
    await browser.close()
    await studio.stop()
  }
} finally {
  await server.cleanup()
  await rm(work, { recursive: true, force: true })
}
