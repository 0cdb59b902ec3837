import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { startTestServer } from '../harness/test-server'
import { buildIfStale } from '../server/boot/build-if-stale'

/**
 * Regenerates the pictures of the page in docs/: each colour scheme at a desktop width (1280 px,
 * the top of the page) and a phone width (390 px, the whole page). `npx tsx scripts/screenshot.ts`
 */
const SHOTS = [
  { width: 1280, height: 800, fullPage: false },
  { width: 390, height: 844, fullPage: true },
] as const

await buildIfStale(console.log)
const server = await startTestServer()
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
try {
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const { width, height, fullPage } of SHOTS) {
      const page = await browser.newPage({
        viewport: { width, height },
        colorScheme,
        reducedMotion: 'reduce',
        deviceScaleFactor: width < 500 ? 2 : 1,
      })
      await page.goto(server.url)
      await page.locator('html[data-hydrated]').waitFor({ state: 'attached' })
      const path = `docs/screenshot-${colorScheme}-${width}.png`
      await page.screenshot({ path, fullPage })
      await page.close()
      console.log(`Wrote ${path}`)
    }
  }
} finally {
  await browser.close()
  await server.cleanup()
}
