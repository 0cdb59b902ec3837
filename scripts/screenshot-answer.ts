import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { startTestServer } from '../harness/test-server'
import { buildIfStale } from '../server/boot/build-if-stale'

/**
 * Pictures for docs/: the page a no-script submit lands on (390 px, scripts off, each colour scheme)
 * and the 404 page. `npx tsx scripts/screenshot-answer.ts`
 */
const SHOTS = [
  { path: '/?waitlist=submitted', file: 'no-script-answer', schemes: ['light', 'dark'] },
  { path: '/no/such/page', file: 'not-found', schemes: ['light'] },
] as const

await buildIfStale(console.log)
const server = await startTestServer()
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
try {
  for (const { path, file, schemes } of SHOTS) {
    for (const colorScheme of schemes) {
      const page = await browser.newPage({
        viewport: { width: 390, height: 844 },
        colorScheme,
        reducedMotion: 'reduce',
        javaScriptEnabled: false,
      })
      await page.goto(`${server.url}${path}`)
      const out = `docs/${file}-${colorScheme}-390.png`
      await page.screenshot({ path: out })
      await page.close()
      console.log(`Wrote ${out}`)
    }
  }
} finally {
  await browser.close()
  await server.cleanup()
}
