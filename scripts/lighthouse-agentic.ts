import * as chromeLauncher from 'chrome-launcher'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { startTestServer } from '../harness/test-server'
import { buildIfStale } from '../server/boot/build-if-stale'
import { loadLighthouse } from './lighthouse-package'

/**
 * Runs Lighthouse once on '/' served by the real server and prints the Agentic browsing, SEO and
 * Best Practices scores, with every audit that kept a category below 1:
 * `npx tsx scripts/lighthouse-agentic.ts`. Not part of `npm test`: a full Lighthouse run takes
 * longer than a test should, and its trace-based audits vary between runs. The deterministic parts
 * (files, catalog validity, form attributes) are asserted in tests/server/agent-files.test.ts.
 *
 * WebMCP is still behind a flag in Chromium; `--enable-features=WebMCP` turns it on so the WebMCP
 * audits inspect the page's tools instead of reporting "not applicable" (`--without-webmcp` to compare).
 */
const CATEGORIES = ['agentic-browsing', 'seo', 'best-practices'] as const

const lighthouse = await loadLighthouse()
await buildIfStale(console.log)
const server = await startTestServer({ env: { LOG_LEVEL: 'error' } })
const chrome = await chromeLauncher.launch({
  chromePath: findChromium(),
  chromeFlags: [
    ...CHROMIUM_ARGS,
    '--headless=new',
    // `--without-webmcp`: as most visitors' browsers are today, where the WebMCP audits do not apply.
    ...(process.argv.includes('--without-webmcp') ? [] : ['--enable-features=WebMCP']),
  ],
})
let failed = false
try {
  const result = await lighthouse(`${server.url}/`, {
    port: chrome.port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: [...CATEGORIES],
  })
  if (!result) throw new Error('Lighthouse returned no result')
  const { categories, audits } = result.lhr
  for (const id of CATEGORIES) {
    const category = categories[id]
    if (!category) throw new Error(`Lighthouse has no '${id}' category`)
    const weighted = category.auditRefs.filter((ref) => ref.weight > 0)
    const counted = weighted.filter((ref) => {
      const mode = audits[ref.id]?.scoreDisplayMode
      return mode !== 'notApplicable' && mode !== 'informative' && mode !== 'manual'
    })
    // A 1 made of "not applicable" audits says little, so say how many audits it rests on.
    console.log(
      `${category.title}: ${category.score} (${counted.length} of ${weighted.length} weighted audits applicable)`,
    )
    if (category.score !== 1) failed = true
    for (const ref of category.auditRefs) {
      const audit = audits[ref.id]
      if (!audit || ref.weight === 0) continue
      const applicable =
        audit.scoreDisplayMode !== 'notApplicable' && audit.scoreDisplayMode !== 'informative'
      const mark = audit.score === 1 || !applicable ? 'ok ' : 'BAD'
      const note = applicable ? String(audit.score) : audit.scoreDisplayMode
      if (mark === 'BAD' || process.argv.includes('--verbose')) {
        console.log(`  ${mark} ${ref.id}: ${note}${audit.explanation ? ` (${audit.explanation})` : ''}`)
        const items = (audit.details as { items?: unknown[] } | undefined)?.items
        if (mark === 'BAD' && items?.length) console.log(`      ${JSON.stringify(items).slice(0, 600)}`)
      }
    }
    if (id === 'agentic-browsing' && process.argv.includes('--verbose')) {
      for (const ref of category.auditRefs) {
        const details = audits[ref.id]?.details
        if (details) console.log(`  ${ref.id} details: ${JSON.stringify(details).slice(0, 800)}`)
      }
    }
  }
} finally {
  chrome.kill()
  await server.cleanup()
}
process.exitCode = failed ? 1 : 0
