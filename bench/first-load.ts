import { chromium } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from '../harness/chromium-path'

/** Chunks the page must fetch only when the visitor reaches for the form, never on load. */
export const LAZY_CHUNK = /\/assets\/(supabase-client|toaster)-[^/]*\.js$/

export interface FirstLoad {
  /** Compressed response-body bytes by Playwright resource type (document, script, stylesheet, image...). */
  bytesByType: Record<string, number>
  /** Every URL fetched with no interaction. */
  urls: string[]
  lazyChunksOnLoad: string[]
  /** An early submit (Supabase client still downloading) showed 'Submitting...' before the client arrived. */
  earlySubmitShowsSubmitting: boolean
  /** And then finished with the success toast once the client arrived. */
  earlySubmitSucceeded: boolean
}

/**
 * Loads '/' in Chromium with no interaction and records what it fetches, then checks that a
 * submit made while the Supabase client is still on its way shows 'Submitting...' at once.
 */
export async function measureFirstLoad(url: string): Promise<FirstLoad> {
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS })
  try {
    const page = await browser.newPage()
    const sizes: Promise<[string, string, number]>[] = []
    page.on('requestfinished', (request) => {
      sizes.push(
        request.sizes().then((size) => [request.url(), request.resourceType(), size.responseBodySize]),
      )
    })
    await page.goto(`${url}/`, { waitUntil: 'networkidle' })
    await page.waitForTimeout(500)
    const loaded = await Promise.all(sizes)
    const bytesByType: Record<string, number> = {}
    for (const [, type, bytes] of loaded) bytesByType[type] = (bytesByType[type] ?? 0) + bytes
    const urls = loaded.map(([fetched]) => fetched)

    // The early-submit window, made wide on purpose: the client chunk is held until released.
    const early = await browser.newPage()
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    await early.route(LAZY_CHUNK, async (route) => {
      if (route.request().url().includes('supabase-client')) await released
      await route.continue()
    })
    await early.goto(`${url}/`, { waitUntil: 'networkidle' })
    const button = early.getByRole('button', { name: 'Request Access' })
    await early.getByPlaceholder('Enter your email').fill(`early-${Date.now()}@example.com`)
    await button.click()
    const submitting = early.getByRole('button', { name: 'Submitting...' })
    const earlySubmitShowsSubmitting = await submitting
      .waitFor({ timeout: 1_000 })
      .then(() => true)
      .catch(() => false)
    release()
    const earlySubmitSucceeded = await early
      .getByText('Request submitted!')
      .first()
      .waitFor({ timeout: 10_000 })
      .then(() => true)
      .catch(() => false)

    return {
      bytesByType,
      urls,
      lazyChunksOnLoad: urls.filter((fetched) => LAZY_CHUNK.test(new URL(fetched).pathname)),
      earlySubmitShowsSubmitting,
      earlySubmitSucceeded,
    }
  } finally {
    await browser.close()
  }
}
