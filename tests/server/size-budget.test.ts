import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  compressedSizes,
  type FirstLoadSet,
  readFirstLoadSet,
  totalCompressed,
} from '../../bench/first-load-set'
import { DIST_DIR } from '../../server/base/paths'
import { buildIfStale } from '../../server/boot/build-if-stale'

/**
 * The byte budgets for '/', so a slow phone on a slow network still paints fast, read from the
 * build (deterministic, so safe to assert; the timings live in `npm run bench`). Sizes are Brotli
 * at quality 11, what the server sends any browser that accepts br (the build's .br files are made the same way); gzip is reported beside.
 */
const JS_BUDGET = 65 * 1024
const CSS_BUDGET = 8 * 1024
// The inline after-paint loader (build/after-paint-loader-plugin.ts), minified.
const LOADER_BUDGET = 1024
// What supabase-js and Radix Toast leave in any bundle that contains them, minified or not.
const SUPABASE_MARKER = 'supabase-js'
const TOAST_MARKER = 'ToastViewport'

let firstLoad: FirstLoadSet
let assets: string[]

beforeAll(async () => {
  await buildIfStale(() => {})
  firstLoad = await readFirstLoadSet(DIST_DIR)
  assets = await readdir(join(DIST_DIR, 'assets'))
})

describe('first load of / (no interaction)', () => {
  it(`downloads at most ${JS_BUDGET / 1024} KB of JavaScript, Brotli-compressed`, async () => {
    expect(firstLoad.js.length).toBeGreaterThan(0)
    const { brotli, gzip } = await totalCompressed(DIST_DIR, firstLoad.js)
    console.info(`first-load JS: ${brotli} B brotli, ${gzip} B gzip in ${firstLoad.js.join(', ')}`)
    expect(brotli).toBeLessThanOrEqual(JS_BUDGET)
  })

  it(`has at most ${CSS_BUDGET / 1024} KB of CSS, inline, with no render-blocking stylesheet`, async () => {
    expect(firstLoad.css).toEqual([])
    expect(firstLoad.inlineCss.length).toBeGreaterThan(0)
    const files = await totalCompressed(DIST_DIR, firstLoad.css)
    expect(compressedSizes(firstLoad.inlineCss).brotli + files.brotli).toBeLessThanOrEqual(CSS_BUDGET)
  })

  it('leaves the Supabase client and the toaster to load when first needed', async () => {
    // They exist as chunks of their own...
    expect(assets.some((name) => /^supabase-client-.*\.js$/.test(name))).toBe(true)
    expect(assets.some((name) => /^toaster-.*\.js$/.test(name))).toBe(true)
    // ...that the first load neither names nor carries inside another chunk.
    expect(firstLoad.js.filter((file) => /supabase|toaster/.test(file))).toEqual([])
    for (const file of firstLoad.js) {
      const code = await readFile(join(DIST_DIR, file), 'utf8')
      expect(code.includes(SUPABASE_MARKER), `${file} contains supabase-js`).toBe(false)
      expect(code.includes(TOAST_MARKER), `${file} contains Radix Toast`).toBe(false)
    }
  })

  it('fetches no script or stylesheet before the first paint; one small inline loader starts the app', () => {
    // What the HTML itself names is fetched while it is parsed, on the way to the first paint.
    expect(firstLoad.fetchedBeforePaint).toEqual([])
    expect(firstLoad.inlineScripts).toHaveLength(1)
    expect(firstLoad.inlineScripts[0]?.length).toBeLessThanOrEqual(LOADER_BUDGET)
    // The loader starts the app: the entry, and the React chunk it imports, are part of the first load.
    expect(firstLoad.js.some((file) => /^assets\/hydrate-.*\.js$/.test(file))).toBe(true)
  })
})

describe('dist', () => {
  it('ships no source maps and no build-time prerender code', () => {
    expect(assets.filter((name) => name.endsWith('.map'))).toEqual([])
    expect(assets.filter((name) => /^(prerender|server)[.-]/.test(name))).toEqual([])
  })

  it('has Brotli and gzip copies of every script made at build time', async () => {
    // Files under 257 bytes (the entry, a few dozen) gain nothing from compression and have none.
    const scripts: string[] = []
    for (const name of assets.filter((file) => file.endsWith('.js'))) {
      if ((await stat(join(DIST_DIR, 'assets', name))).size > 256) scripts.push(name)
    }
    expect(scripts.length).toBeGreaterThan(0)
    for (const script of scripts) {
      expect(assets).toContain(`${script}.br`)
      expect(assets).toContain(`${script}.gz`)
    }
  })
})
