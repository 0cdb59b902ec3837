import { startTestServer, type TestServer } from '../harness/test-server'
import { BROWSER_HEADERS, type LoadResult, runLoad } from './http-load'
import { httpInserts } from './inserts'
import { processCpuMs } from './process-cpu'
import type { Row, Track } from './table'

const CONNECTIONS = 50
const SECONDS = 8
const ROUNDS = 3

const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'

// What a launch brings: tagged links, a referring site, direct loads (each counted, none a bot).
const VISITS = [
  { path: '/?utm_source=x&utm_medium=social&utm_campaign=launch', headers: {} },
  { path: '/', headers: { referer: 'https://news.ycombinator.com/item?id=46000001' } },
  { path: '/', headers: {} },
].map((request) => ({
  ...request,
  headers: { ...BROWSER_HEADERS, 'user-agent': BROWSER, ...request.headers },
}))

interface Run extends LoadResult {
  /** The server's own CPU time per answered request, which the load generator's share does not blur. */
  cpuMicrosPerRequest: number
}

type Kind = 'visits' | 'inserts'

// The page's insert from a tagged page: the signup's source is read from its Referer.
const signupPage = (server: TestServer) => ({
  'user-agent': BROWSER,
  referer: `${server.url}/?utm_source=x&utm_medium=social&utm_campaign=launch`,
})

/** One load of `kind` on a server, with the server's own CPU time per answered request. */
async function load(server: TestServer, seconds: number, kind: Kind): Promise<Run> {
  const pid = server.process.pid ?? 0
  const before = processCpuMs(pid)
  const result =
    kind === 'visits'
      ? await runLoad({
          url: `${server.url}/`,
          connections: CONNECTIONS,
          durationSeconds: seconds,
          requests: VISITS,
        })
      : await httpInserts(server.url, server.anonKey, CONNECTIONS, seconds, signupPage(server))
  const requests = result.requestsPerSecond * seconds
  return { ...result, cpuMicrosPerRequest: ((processCpuMs(pid) - before) * 1000) / Math.max(1, requests) }
}

/** Counting on and off, alternated ROUNDS times after a second's warm-up of each. */
async function alternate(counting: TestServer, plain: TestServer, kind: Kind) {
  await load(counting, 1, kind)
  await load(plain, 1, kind)
  const on: Run[] = []
  const off: Run[] = []
  for (let round = 0; round < ROUNDS; round++) {
    on.push(await load(counting, SECONDS, kind))
    off.push(await load(plain, SECONDS, kind))
  }
  const ratios = on.map((run, index) => run.requestsPerSecond / (off[index]?.requestsPerSecond ?? 1))
  const cpuOn = median(on.map((run) => run.cpuMicrosPerRequest))
  const cpuOff = median(off.map((run) => run.cpuMicrosPerRequest))
  const bad = [...on, ...off].reduce((sum, run) => sum + run.non2xx + run.errors, 0)
  return {
    on,
    off,
    ratios,
    cpuOn,
    cpuOff,
    bad,
    ratio: best(on).requestsPerSecond / best(off).requestsPerSecond,
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const best = (runs: Run[]) =>
  runs.reduce((top, run) => (run.requestsPerSecond > top.requestsPerSecond ? run : top))

/**
 * `GET /` with visits counted (the default) against the same server with COUNT_SOURCES=false, both
 * on the embedded database, under the same mix of browser requests, alternated ROUNDS times; then
 * the page's insert from a tagged page on each. Besides the rates, which swing with whatever else
 * the machine runs, the server's own CPU time per request (from /proc), which tells the cost of
 * counting apart from the load generator's share.
 */
export async function visitFigures(
  serverEnv: Record<string, string>,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const counting = await startTestServer({ env: serverEnv, bundled: true })
  track(() => counting.cleanup())
  const plain = await startTestServer({ env: { ...serverEnv, COUNT_SOURCES: 'false' }, bundled: true })
  track(() => plain.cleanup())
  log(`GET / counted and not, ${CONNECTIONS} connections, alternated ${ROUNDS} x ${SECONDS} s each`)
  const visits = await alternate(counting, plain, 'visits')
  log(`Inserts from a tagged page, counted and not, alternated ${ROUNDS} x ${SECONDS} s each`)
  const inserts = await alternate(counting, plain, 'inserts')
  await Promise.all([counting.cleanup(), plain.cleanup()])
  const [bestOn, bestOff] = [best(visits.on), best(visits.off)]
  const rounds = (ratios: number[]) => ratios.map((value) => `${(value * 100).toFixed(0)}%`).join(', ')
  const cpu = (figures: { cpuOn: number; cpuOff: number }) =>
    `${figures.cpuOn.toFixed(0)} / ${figures.cpuOff.toFixed(0)} µs (off / on = ${((figures.cpuOff / figures.cpuOn) * 100).toFixed(0)}%)`
  const rows: Row[] = [
    {
      metric: `GET / counting visits on / off (${CONNECTIONS} conn, best of ${ROUNDS}, alternated)`,
      value:
        `${bestOn.requestsPerSecond.toFixed(0)} / ${bestOff.requestsPerSecond.toFixed(0)} req/s ` +
        `(${(visits.ratio * 100).toFixed(0)}%; rounds ${rounds(visits.ratios)}), p99 ${bestOn.p99Ms} / ${bestOff.p99Ms} ms` +
        (visits.bad ? `, ${visits.bad} bad` : ''),
      target: '>= 95% of counting off',
      ok: visits.ratio >= 0.95 && visits.bad === 0,
    },
    { metric: 'GET / server CPU per request, counting on / off (median)', value: cpu(visits), target: '' },
    {
      metric: `Inserts counting on / off (${CONNECTIONS} clients, best of ${ROUNDS}, alternated)`,
      value:
        `${best(inserts.on).requestsPerSecond.toFixed(0)} / ${best(inserts.off).requestsPerSecond.toFixed(0)} per s ` +
        `(${(inserts.ratio * 100).toFixed(0)}%; rounds ${rounds(inserts.ratios)})` +
        (inserts.bad ? `, ${inserts.bad} bad` : ''),
      target: '',
    },
    { metric: 'Inserts server CPU per insert, counting on / off (median)', value: cpu(inserts), target: '' },
  ]
  return { rows, results: { visits, inserts } }
}
