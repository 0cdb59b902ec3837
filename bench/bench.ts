import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { BACKENDS } from '../harness/backends'
import { startTestServer, type TestServer } from '../harness/test-server'
import { DIST_DIR, ROOT } from '../server/base/paths'
import { buildIfStale } from '../server/boot/build-if-stale'
import { backupFigures } from './backup-figures'
import { containerFigures } from './container-figures'
import { measureFirstLoad } from './first-load'
import { BROWSER_HEADERS, runLoad } from './http-load'
import { insertFigures } from './insert-figures'
import { SPIKE_DEFAULTS, spikeFigures } from './launch-spike'
import { CATEGORIES, type LighthouseRun, launchLighthouseBrowser, summarise } from './lighthouse-runs'
import { mailFigures } from './mail-figures'
import { mailchimpImportFigures } from './mailchimp-import'
import { cohortOnlyFigures, millionFigures } from './million-figures'
import { NGINX_HINT, startNginx } from './nginx'
import { startupFigures } from './startup-figures'
import { serveStaticCopy } from './static-copy'
import { kb } from './stats'
import { printTable, type Row, type Track } from './table'
import { visitFigures } from './visit-figures'

/**
 * `npm run bench`: the page's speed against its static-HTML limit, the server's throughput, the
 * insert path against a bare node:http server on the same database, memory, and start-up times, in
 * one table (each row beside its target) and one JSON file under bench/results/. Figures only:
 * nothing here is a test. Every process it starts is stopped, on failure too. Each server it measures
 * runs as `npm start` runs it (build/start.mjs: the esbuild bundle on plain Node), not through tsx.
 *
 *   npm run bench [-- --only visits,inserts,mail,startup] [--rows N (the million section's list, default 1,000,000)]
 *   npm run bench -- --only cohort   (the million's list and only the cohort figures)
 *   npm run bench -- --only mailchimp [--rows N]   (a Mailchimp export's import against a bare load)
 *   npm run bench -- --only backup [--rows N]   (backup --to, restore, the store's base, at a million)
 */
const LIGHTHOUSE_RUNS = 3
const CONNECTIONS = 50
const GET_SECONDS = 10
const SECTIONS = [
  'lighthouse',
  'first-load',
  'get',
  'visits',
  'inserts',
  'mail',
  'startup',
  'container',
  'million',
  'mailchimp',
  'spike',
  // The million's list and its cohort figures alone (issues 43 and 50); not in the default run,
  // where `million` measures them already.
  'cohort',
  // Backup and restore at a million (issue 65): the list loaded again, copied and restored three ways.
  'backup',
] as const
const SERVER_ENV = { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0' }

const began = Date.now()
// Client, server and Postgres share the machine (and, here, other people's work): say how busy it was.
const load = () => loadavg()[0]?.toFixed(1) ?? '?'
const loadAtStart = load()
const log = (message: string) =>
  console.error(`[bench ${((Date.now() - began) / 1000).toFixed(0)}s] ${message}`)
const cleanups: (() => Promise<unknown>)[] = []
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse())
    await cleanup().catch((error) => log(`cleanup: ${error}`))
}
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)))
process.once('SIGTERM', () => void cleanUp().then(() => process.exit(143)))

const track: Track = (cleanup) => cleanups.push(cleanup)

const { values: options } = parseArgs({ options: { only: { type: 'string' }, rows: { type: 'string' } } })

/**
 * Run when named, not in a plain run: `million` measures the cohort already; the spike is six
 * minutes; the backup's loads a million rows again.
 */
const NAMED_ONLY = new Set<string>(['cohort', 'spike', 'backup'])

/** The sections named by `--only` (comma-separated), else all of them but NAMED_ONLY. */
function chosenSections(): Set<string> {
  const only =
    options.only?.split(',').map((name) => name.trim()) ?? SECTIONS.filter((name) => !NAMED_ONLY.has(name))
  const unknown = only.filter((name) => !(SECTIONS as readonly string[]).includes(name))
  if (unknown.length) throw new Error(`--only takes ${SECTIONS.join(', ')}; not ${unknown.join(', ')}`)
  return new Set(only)
}

type Results = Record<string, unknown>

async function main() {
  const sections = chosenSections()
  await buildIfStale(log)
  const rows: Row[] = []
  const results: Results = { date: new Date().toISOString(), sections: [...sections] }

  if (['lighthouse', 'first-load', 'get'].some((section) => sections.has(section))) {
    const server = await startTestServer({ env: SERVER_ENV, bundled: true })
    track(() => server.cleanup())
    if (sections.has('lighthouse')) await lighthouseFigures(server, rows, results)
    if (sections.has('first-load')) await firstLoadFigures(server, rows, results)
    if (sections.has('get')) await getFigures(server, rows, results)
    await server.cleanup()
  }

  if (sections.has('visits')) {
    const figures = await visitFigures(SERVER_ENV, track, log)
    rows.push(...figures.rows)
    results.visits = figures.results
  }

  if (sections.has('inserts')) {
    const inserts: Record<string, unknown> = {}
    for (const { name } of BACKENDS) {
      const figures = await insertFigures(name, SERVER_ENV, track, log)
      rows.push(...figures.rows)
      inserts[name] = figures.results
    }
    results.inserts = inserts
  }

  if (sections.has('mail')) {
    const figures = await mailFigures(SERVER_ENV, track, log)
    rows.push(...figures.rows)
    results.mail = figures.results
  }

  if (sections.has('startup')) {
    const figures = await startupFigures(track, log)
    rows.push(...figures.rows)
    results.startup = figures.results
  }

  if (sections.has('container')) {
    const figures = await containerFigures(track, log)
    rows.push(...figures.rows)
    results.container = figures.results
  }

  if (sections.has('million')) {
    const figures = await millionFigures(Number(options.rows ?? 1_000_000), track, log)
    rows.push(...figures.rows)
    results.million = figures.results
  } else if (sections.has('cohort')) {
    const figures = await cohortOnlyFigures(Number(options.rows ?? 1_000_000), track, log)
    rows.push(...figures.rows)
    results.cohort = figures.results
  }

  if (sections.has('mailchimp')) {
    const figures = await mailchimpImportFigures(Number(options.rows ?? 1_000_000), track, log)
    rows.push(...figures.rows)
    results.mailchimp = figures.results
  }

  if (sections.has('backup')) {
    const figures = await backupFigures(Number(options.rows ?? 1_000_000), track, log)
    rows.push(...figures.rows)
    results.backup = figures.results
  }

  if (sections.has('spike')) {
    const figures = await spikeFigures(SPIKE_DEFAULTS, track, log)
    rows.push(...figures.rows)
    results.spike = figures.results
  }

  await cleanUp()
  const seconds = (Date.now() - began) / 1000
  results.rows = rows
  results.seconds = seconds
  results.machine = { cpus: cpus().length, loadAtStart, loadAtEnd: load() }
  printTable(rows)
  console.log(
    `\n(${seconds.toFixed(0)} s on ${cpus().length} CPUs, 1-min load average ${loadAtStart} at start, ${load()} at end; ` +
      'compressed = bytes on the wire with Accept-Encoding: br, gzip)',
  )
  const directory = join(ROOT, 'bench', 'results')
  await mkdir(directory, { recursive: true })
  const file = join(directory, `${new Date().toISOString().replaceAll(':', '-')}.json`)
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`)
  console.log(`Wrote ${file}`)
  process.exitCode = rows.some((row) => row.ok === false) ? 1 : 0
}

async function lighthouseFigures(server: TestServer, rows: Row[], results: Results) {
  const staticCopy = await serveStaticCopy(DIST_DIR)
  track(() => staticCopy.close())
  // Lighthouse, alternating the two pages so drift on a shared machine hits both alike.
  // The static rendering is served with the site's own security headers (bench/static-copy.ts):
  // the two pages differ only by their scripts.
  log(`Lighthouse ${LIGHTHOUSE_RUNS}x on ${server.url}/ and on its static-HTML rendering`)
  const browser = await launchLighthouseBrowser()
  track(async () => browser.close())
  const siteRuns: LighthouseRun[] = []
  const staticRuns: LighthouseRun[] = []
  for (let run = 0; run < LIGHTHOUSE_RUNS; run++) {
    siteRuns.push(await browser.run(`${server.url}/`))
    staticRuns.push(await browser.run(`${staticCopy.url}/`))
  }
  browser.close()
  const site = summarise(siteRuns)
  const limit = summarise(staticRuns)
  results.lighthouse = { site, static: limit }
  for (const id of CATEGORIES) {
    const score = site.median.scores[id]
    rows.push({
      metric: `Lighthouse ${id} (median of ${LIGHTHOUSE_RUNS})`,
      value: `${score}`,
      target: '100',
      ok: score === 100,
    })
  }
  const lcpRatio = site.median.lcpMs / limit.median.lcpMs
  rows.push({
    metric: 'FCP site / static',
    value: `${site.median.fcpMs.toFixed(0)} / ${limit.median.fcpMs.toFixed(0)} ms`,
    target: '',
  })
  rows.push({
    metric: 'LCP site / static',
    value: `${site.median.lcpMs.toFixed(0)} / ${limit.median.lcpMs.toFixed(0)} ms (x${lcpRatio.toFixed(2)})`,
    target: '<= x1.10',
    ok: lcpRatio <= 1.1,
  })
  rows.push({
    metric: 'TBT site (static)',
    value: `${site.median.tbtMs.toFixed(0)} ms (${limit.median.tbtMs.toFixed(0)} ms)`,
    target: '<= 50 ms',
    ok: site.median.tbtMs <= 50,
  })
  rows.push({
    metric: 'CLS',
    value: site.median.cls.toFixed(3),
    target: '<= 0.01',
    ok: site.median.cls <= 0.01,
  })
  const failing = [...new Set(siteRuns.flatMap((run) => run.failing))]
  if (failing.length) log(`audits below 1 in some run: ${failing.join(', ')}`)
  await staticCopy.close()
}

async function firstLoadFigures(server: TestServer, rows: Row[], results: Results) {
  log('First load in Chromium (Playwright), and a submit before the Supabase client has arrived')
  const firstLoad = await measureFirstLoad(server.url)
  results.firstLoad = firstLoad
  const { script = 0, stylesheet = 0, document = 0, image = 0 } = firstLoad.bytesByType
  const other = Object.entries(firstLoad.bytesByType)
    .filter(([type]) => !['script', 'stylesheet', 'document', 'image'].includes(type))
    .reduce((sum, [, bytes]) => sum + bytes, 0)
  rows.push({
    metric: 'First-load JS (compressed)',
    value: kb(script),
    target: '<= 65 KB',
    ok: script <= 65 * 1024,
  })
  rows.push({
    metric: 'First-load HTML (incl. inline CSS) / CSS files',
    value: `${kb(document)} / ${kb(stylesheet)}`,
    target: '',
  })
  rows.push({ metric: 'First-load images / other', value: `${kb(image)} / ${kb(other)}`, target: '' })
  rows.push({
    metric: 'Supabase / toaster chunks on load',
    value: firstLoad.lazyChunksOnLoad.length ? firstLoad.lazyChunksOnLoad.join(' ') : 'none',
    target: 'none',
    ok: firstLoad.lazyChunksOnLoad.length === 0,
  })
  rows.push({
    metric: "Early submit shows 'Submitting...' / succeeds",
    value: `${firstLoad.earlySubmitShowsSubmitting} / ${firstLoad.earlySubmitSucceeded}`,
    target: 'true / true',
    ok: firstLoad.earlySubmitShowsSubmitting && firstLoad.earlySubmitSucceeded,
  })
}

async function getFigures(server: TestServer, rows: Row[], results: Results) {
  log(`GET / with ${CONNECTIONS} connections for ${GET_SECONDS} s`)
  const node = await runLoad({
    url: `${server.url}/`,
    connections: CONNECTIONS,
    durationSeconds: GET_SECONDS,
    headers: BROWSER_HEADERS,
  })
  results.getHome = { node }
  rows.push({
    metric: `GET / Node (${CONNECTIONS} conn)`,
    value: `${node.requestsPerSecond.toFixed(0)} req/s, p99 ${node.p99Ms} ms, ${node.non2xx + node.errors} bad`,
    target: '>= 5000 req/s',
    ok: node.requestsPerSecond >= 5000 && node.non2xx + node.errors === 0,
  })
  const nginx = await startNginx(DIST_DIR, server.anonKey)
  if (nginx) {
    track(() => nginx.stop())
    log('The same load against nginx serving dist')
    const viaNginx = await runLoad({
      url: `${nginx.url}/`,
      connections: CONNECTIONS,
      durationSeconds: GET_SECONDS,
      headers: BROWSER_HEADERS,
    })
    await nginx.stop()
    results.getHome = { node, nginx: viaNginx }
    rows.push({
      metric: 'GET / nginx, 1 worker (Node / nginx)',
      value: `${viaNginx.requestsPerSecond.toFixed(0)} req/s, p99 ${viaNginx.p99Ms} ms (x${(node.requestsPerSecond / viaNginx.requestsPerSecond).toFixed(2)})`,
      target: '',
    })
  } else {
    log(NGINX_HINT)
    rows.push({ metric: 'GET / nginx', value: 'not installed (apt-get install -y nginx)', target: '' })
  }
}

main().catch(async (error) => {
  console.error('bench failed:', error)
  await cleanUp()
  process.exit(1)
})
