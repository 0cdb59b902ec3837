import { startTestServer, type TestServer } from '../tests/support/test-server'
import { BROWSER_HEADERS, type LoadResult, runLoad } from './http-load'
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

async function load(server: TestServer, seconds: number): Promise<Run> {
  const pid = server.process.pid ?? 0
  const before = processCpuMs(pid)
  const result = await runLoad({
    url: `${server.url}/`,
    connections: CONNECTIONS,
    durationSeconds: seconds,
    requests: VISITS,
  })
  const requests = result.requestsPerSecond * seconds
  return { ...result, cpuMicrosPerRequest: ((processCpuMs(pid) - before) * 1000) / Math.max(1, requests) }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

const best = (runs: Run[]) =>
  runs.reduce((top, run) => (run.requestsPerSecond > top.requestsPerSecond ? run : top))

/**
 * `GET /` with visits counted (the default) against the same server with COUNT_SOURCES=false, both
 * on the embedded database, under the same mix of browser requests, alternated ROUNDS times.
 */
export async function visitFigures(
  serverEnv: Record<string, string>,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const counting = await startTestServer({ env: serverEnv })
  track(() => counting.cleanup())
  const plain = await startTestServer({ env: { ...serverEnv, COUNT_SOURCES: 'false' } })
  track(() => plain.cleanup())
  log(`GET / counted and not, ${CONNECTIONS} connections, alternated ${ROUNDS} x ${SECONDS} s each`)
  await load(counting, 1)
  await load(plain, 1)
  const on: Run[] = []
  const off: Run[] = []
  for (let round = 0; round < ROUNDS; round++) {
    on.push(await load(counting, SECONDS))
    off.push(await load(plain, SECONDS))
  }
  await Promise.all([counting.cleanup(), plain.cleanup()])
  const ratios = on.map((run, index) => run.requestsPerSecond / (off[index]?.requestsPerSecond ?? 1))
  const [bestOn, bestOff] = [best(on), best(off)]
  const ratio = bestOn.requestsPerSecond / bestOff.requestsPerSecond
  const cpuOn = median(on.map((run) => run.cpuMicrosPerRequest))
  const cpuOff = median(off.map((run) => run.cpuMicrosPerRequest))
  const bad = [...on, ...off].reduce((sum, run) => sum + run.non2xx + run.errors, 0)
  const perRound = ratios.map((value) => `${(value * 100).toFixed(0)}%`).join(', ')
  const rows: Row[] = [
    {
      metric: `GET / counting visits on / off (${CONNECTIONS} conn, best of ${ROUNDS}, alternated)`,
      value:
        `${bestOn.requestsPerSecond.toFixed(0)} / ${bestOff.requestsPerSecond.toFixed(0)} req/s ` +
        `(${(ratio * 100).toFixed(0)}%; rounds ${perRound}), p99 ${bestOn.p99Ms} / ${bestOff.p99Ms} ms` +
        (bad ? `, ${bad} bad` : ''),
      target: '>= 95% of counting off',
      ok: ratio >= 0.95 && bad === 0,
    },
    {
      metric: 'GET / server CPU per request, counting on / off (median)',
      value: `${cpuOn.toFixed(0)} / ${cpuOff.toFixed(0)} µs (off / on = ${((cpuOff / cpuOn) * 100).toFixed(0)}%)`,
      target: '',
    },
  ]
  return { rows, results: { on, off, ratio, ratios, cpuOn, cpuOff } }
}
