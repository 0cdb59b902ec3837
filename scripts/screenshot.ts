import { chromium } from '@playwright/test'
import { buildIfStale } from '../server/build-if-stale'
import { CHROMIUM_ARGS, findChromium } from '../tests/support/chromium-path'
import { startTestServer } from '../tests/support/test-server'

/** Regenerates docs/screenshot.png, the README's picture of the page: `npx tsx scripts/screenshot.ts`. */
await buildIfStale(console.log)
const server = await startTestServer()
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(server.url)
  await page.screenshot({ path: 'docs/screenshot.png', fullPage: true })
  console.log('Wrote docs/screenshot.png')
} finally {
  await browser.close()
  await server.cleanup()
}
