import { CATEGORIES, launchLighthouseBrowser } from '../bench/lighthouse-runs'
import { startTestServer } from '../harness/test-server'
import { buildIfStale } from '../server/boot/build-if-stale'

/**
 * Lighthouse's four categories on '/' in each colour scheme, `--runs N` times each (default 3):
 * `npx tsx scripts/lighthouse-schemes.ts`. The scheme is Chromium's own preference
 * (`--blink-settings=preferredColorScheme`), which the page reads through prefers-color-scheme.
 */
const runsArg = process.argv.indexOf('--runs')
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3
const SCHEMES = { light: '1', dark: '0' } as const

await buildIfStale(console.log)
const server = await startTestServer({ env: { LOG_LEVEL: 'error' } })
let failed = false
try {
  for (const [scheme, value] of Object.entries(SCHEMES)) {
    const browser = await launchLighthouseBrowser([`--blink-settings=preferredColorScheme=${value}`])
    try {
      for (let run = 1; run <= RUNS; run++) {
        let result = await browser.run(`${server.url}/`)
        // Lighthouse sometimes loses its trace (NO_NAVSTART), mostly on a fresh browser's first
        // run: that measures nothing about the page, so such a run is made again, and said.
        for (let retry = 0; retry < 2 && Number.isNaN(result.lcpMs); retry++) {
          console.log(
            `${scheme} #${run}: no trace (${result.failing.at(-1) ?? 'no reason given'}), run again`,
          )
          result = await browser.run(`${server.url}/`)
        }
        const scores = CATEGORIES.map((id) => `${id} ${result.scores[id]}`).join(', ')
        console.log(
          `${scheme} #${run}: ${scores}; LCP ${Math.round(result.lcpMs)} ms, TBT ${Math.round(result.tbtMs)} ms, CLS ${result.cls}`,
        )
        if (result.failing.length > 0) console.log(`  below 100: ${result.failing.join(', ')}`)
        if (CATEGORIES.some((id) => result.scores[id] !== 100)) failed = true
      }
    } finally {
      browser.close()
    }
  }
} finally {
  await server.cleanup()
}
process.exitCode = failed ? 1 : 0
