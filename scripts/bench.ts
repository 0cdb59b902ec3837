import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildIfStale, DIST_DIR, ROOT } from '../server/build-if-stale'
import { openDatabase } from '../server/db/open-database'
import { freshDataDir } from '../tests/support/data-dir'
import { createDatabase, findPostgresBin, startPostgres } from '../tests/support/postgres-cluster'
import { startTestServer } from '../tests/support/test-server'
import { measureFirstLoad } from './bench/first-load'
import { BROWSER_HEADERS, runLoad } from './bench/http-load'
import { apiInsert, httpInserts, type InsertRates, rawInserts } from './bench/inserts'
import { CATEGORIES, type LighthouseRun, launchLighthouseBrowser, summarise } from './bench/lighthouse-runs'
import { NGINX_HINT, startNginx } from './bench/nginx'
import { serveStaticCopy } from './bench/static-copy'
import { kb } from './bench/stats'

/**
 * `npm run bench`: the page's speed against its static-HTML limit, the server's throughput, and
 * the insert path against the raw database, in one table (issue 4's targets) and one JSON file
 * under bench/results/. Figures only: nothing here is a test. Every process it starts is stopped.
 */
const LIGHTHOUSE_RUNS = 3
const CONNECTIONS = 50
const GET_SECONDS = 10
const INSERT_SECONDS = 8
const SERVER_ENV = { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0' }

const began = Date.now()
const log = (message: string) =>
  console.error(`[bench ${((Date.now() - began) / 1000).toFixed(0)}s] ${message}`)
const cleanups: (() => Promise<unknown>)[] = []
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse())
    await cleanup().catch((error) => log(`cleanup: ${error}`))
}
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)))
process.once('SIGTERM', () => void cleanUp().then(() => process.exit(143)))

interface Row {
  metric: string
  value: string
  target: string
  ok?: boolean
}

async function main() {
  await buildIfStale(log)
  const rows: Row[] = []
  const results: Record<string, unknown> = { date: new Date().toISOString() }

  const server = await startTestServer({ env: SERVER_ENV })
  cleanups.push(() => server.cleanup())
  const staticCopy = await serveStaticCopy(DIST_DIR)
  cleanups.push(() => staticCopy.close())

  // Lighthouse, alternating the two pages so drift on a shared machine hits both alike.
  // The static rendering is served with the site's own security headers (scripts/bench/static-copy.ts):
  // the two pages differ only by their scripts.
  log(`Lighthouse ${LIGHTHOUSE_RUNS}x on ${server.url}/ and on its static-HTML rendering`)
  const browser = await launchLighthouseBrowser()
  cleanups.push(async () => browser.close())
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
    target: '<= 80 KB',
    ok: script <= 80 * 1024,
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
    cleanups.push(() => nginx.stop())
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

  log(`Waitlist inserts, PGlite: HTTP with ${CONNECTIONS} clients, then the raw database`)
  const pgliteHttp = await httpInserts(server.url, server.anonKey, CONNECTIONS, INSERT_SECONDS)
  await server.cleanup()
  const copy = await freshDataDir()
  cleanups.push(() => copy.cleanup())
  const pglite = await openDatabase({ dataDir: copy.dir, purpose: 'bench' })
  const pgliteRaw = await rawInserts(pglite.db, CONNECTIONS, INSERT_SECONDS)
  const pgliteAsApi = await rawInserts(pglite.db, CONNECTIONS, INSERT_SECONDS / 2, apiInsert)
  await pglite.close()
  await copy.cleanup()
  const inserts: Record<string, InsertRates> = {
    pglite: {
      http: pgliteHttp,
      raw: pgliteRaw,
      rawAsApi: pgliteAsApi,
      ratio: pgliteHttp.requestsPerSecond / pgliteRaw.insertsPerSecond,
    },
  }

  if (findPostgresBin()) {
    log('Waitlist inserts, PostgreSQL: HTTP, then the raw database')
    const cluster = await startPostgres()
    cleanups.push(() => cluster.stop())
    const httpUrl = await createDatabase(cluster, 'bench_http')
    const rawUrl = await createDatabase(cluster, 'bench_raw')
    const pgServer = await startTestServer({ env: { ...SERVER_ENV, DATABASE_URL: httpUrl } })
    cleanups.push(() => pgServer.cleanup())
    const http = await httpInserts(pgServer.url, pgServer.anonKey, CONNECTIONS, INSERT_SECONDS)
    await pgServer.cleanup()
    const postgres = await openDatabase({ databaseUrl: rawUrl, dataDir: '' })
    const raw = await rawInserts(postgres.db, CONNECTIONS, INSERT_SECONDS)
    const rawAsApi = await rawInserts(postgres.db, CONNECTIONS, INSERT_SECONDS / 2, apiInsert)
    await postgres.close()
    await cluster.stop()
    inserts.postgres = { http, raw, rawAsApi, ratio: http.requestsPerSecond / raw.insertsPerSecond }
  } else {
    log('No PostgreSQL binaries (apt-get install -y postgresql): PostgreSQL inserts skipped')
    rows.push({
      metric: 'Inserts PostgreSQL',
      value: 'no binaries (apt-get install -y postgresql)',
      target: '',
    })
  }
  results.inserts = inserts
  for (const [name, rates] of Object.entries(inserts)) {
    rows.push({
      metric: `Inserts ${name}: HTTP / raw (${CONNECTIONS} clients)`,
      value:
        `${rates.http.requestsPerSecond.toFixed(0)} / ${rates.raw.insertsPerSecond.toFixed(0)} per s ` +
        `(${(rates.ratio * 100).toFixed(0)}%), p99 ${rates.http.p99Ms} / ${rates.raw.p99Ms.toFixed(1)} ms` +
        (rates.http.non2xx + rates.http.errors ? `, ${rates.http.non2xx + rates.http.errors} bad` : ''),
      target: '>= 50% of raw',
      ok: rates.ratio >= 0.5 && rates.http.non2xx + rates.http.errors === 0,
    })
    rows.push({
      metric: `Inserts ${name}: API statement in process`,
      value:
        `${rates.rawAsApi.insertsPerSecond.toFixed(0)} per s, p99 ${rates.rawAsApi.p99Ms.toFixed(1)} ms ` +
        `(HTTP reaches ${((rates.http.requestsPerSecond / rates.rawAsApi.insertsPerSecond) * 100).toFixed(0)}% of it)`,
      target: '',
    })
  }

  await cleanUp()
  const seconds = (Date.now() - began) / 1000
  results.rows = rows
  results.seconds = seconds
  printTable(rows)
  console.log(`\n(${seconds.toFixed(0)} s; compressed = bytes on the wire with Accept-Encoding: br, gzip)`)
  const directory = join(ROOT, 'bench', 'results')
  await mkdir(directory, { recursive: true })
  const file = join(directory, `${new Date().toISOString().replaceAll(':', '-')}.json`)
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`)
  console.log(`Wrote ${file}`)
  process.exitCode = rows.some((row) => row.ok === false) ? 1 : 0
}

function printTable(rows: Row[]) {
  const widths = [
    Math.max(6, ...rows.map((row) => row.metric.length)),
    Math.max(5, ...rows.map((row) => row.value.length)),
    Math.max(6, ...rows.map((row) => row.target.length)),
  ]
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(`${line(['metric', 'value', 'target'])} ok   |`)
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|------|`)
  for (const row of rows) {
    const mark = row.ok === undefined ? '     ' : row.ok ? 'yes  ' : 'NO   '
    console.log(`${line([row.metric, row.value, row.target])} ${mark}|`)
  }
}

main().catch(async (error) => {
  console.error('bench failed:', error)
  await cleanUp()
  process.exit(1)
})
