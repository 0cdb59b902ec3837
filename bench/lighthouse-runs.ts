import * as chromeLauncher from 'chrome-launcher'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'
import { loadLighthouse } from '../scripts/lighthouse-package'
import { median } from './stats'

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const
type Category = (typeof CATEGORIES)[number]

export interface LighthouseRun {
  scores: Record<Category, number>
  fcpMs: number
  lcpMs: number
  tbtMs: number
  cls: number
  speedIndexMs: number
  /** Compressed bytes transferred on load, by Lighthouse's resource type. */
  bytesByType: Record<string, number>
  /** Audits that kept a category below 100, for the reader who has to fix them. */
  failing: string[]
}

export interface LighthouseSummary {
  runs: LighthouseRun[]
  median: Omit<LighthouseRun, 'bytesByType' | 'failing'>
}

export interface LighthouseBrowser {
  run(url: string): Promise<LighthouseRun>
  close(): void
}

/**
 * One headless Chromium, as the tests find it, for every Lighthouse run (mobile defaults).
 * `extraFlags`: more Chromium switches, such as the preferred colour scheme.
 */
export async function launchLighthouseBrowser(extraFlags: string[] = []): Promise<LighthouseBrowser> {
  const lighthouse = await loadLighthouse()
  const chrome = await chromeLauncher.launch({
    chromePath: findChromium(),
    chromeFlags: [...CHROMIUM_ARGS, '--headless=new', ...extraFlags],
  })
  return {
    async run(url) {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...CATEGORIES],
      })
      if (!result) throw new Error(`Lighthouse returned no result for ${url}`)
      const { categories, audits } = result.lhr
      const numeric = (id: string) => audits[id]?.numericValue ?? Number.NaN
      const scores = Object.fromEntries(
        CATEGORIES.map((id) => [id, Math.round((categories[id]?.score ?? 0) * 100)]),
      ) as Record<Category, number>
      const failing = CATEGORIES.flatMap((id) =>
        (categories[id]?.auditRefs ?? [])
          .filter(
            (ref) => ref.weight > 0 && audits[ref.id]?.score !== null && (audits[ref.id]?.score ?? 1) < 1,
          )
          .map((ref) => `${id}/${ref.id}=${audits[ref.id]?.score}`),
      )
      // A run that could not measure (a NaN metric) says why, instead of a bare 0.
      for (const id of ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time']) {
        const message = audits[id]?.errorMessage
        if (message) failing.push(`${id}: ${message}`)
      }
      if (result.lhr.runtimeError) failing.push(`runtime error: ${result.lhr.runtimeError.message}`)
      const bytesByType: Record<string, number> = {}
      const items = (
        audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number }[] }
      )?.items
      for (const item of items ?? []) {
        const type = item.resourceType ?? 'Other'
        bytesByType[type] = (bytesByType[type] ?? 0) + (item.transferSize ?? 0)
      }
      return {
        scores,
        fcpMs: numeric('first-contentful-paint'),
        lcpMs: numeric('largest-contentful-paint'),
        tbtMs: numeric('total-blocking-time'),
        cls: numeric('cumulative-layout-shift'),
        speedIndexMs: numeric('speed-index'),
        bytesByType,
        failing,
      }
    },
    close: () => chrome.kill(),
  }
}

export function summarise(runs: LighthouseRun[]): LighthouseSummary {
  // A run whose trace Lighthouse could not record (NO_NAVSTART) has no timings: the median is of the others.
  const of = (pick: (run: LighthouseRun) => number) => median(runs.map(pick).filter(Number.isFinite))
  return {
    runs,
    median: {
      scores: Object.fromEntries(CATEGORIES.map((id) => [id, of((run) => run.scores[id])])) as Record<
        Category,
        number
      >,
      fcpMs: of((run) => run.fcpMs),
      lcpMs: of((run) => run.lcpMs),
      tbtMs: of((run) => run.tbtMs),
      cls: of((run) => run.cls),
      speedIndexMs: of((run) => run.speedIndexMs),
    },
  }
}
