import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { freePort } from '../harness/postgres-cluster'
import { ROOT } from '../server/base/paths'
import { BROWSER_HEADERS, type LoadResult, runLoad } from './http-load'

/** The page's one call, as supabase-js sends it (the baseline gets the same bytes and ignores the headers). */
function insertLoad(
  url: string,
  anonKey: string,
  clients: number,
  seconds: number,
  amount?: number,
  headersOf?: (n: number) => Record<string, string>,
  extraHeaders: Record<string, string> = {},
) {
  return runLoad({
    headersOf,
    url: `${url}/rest/v1/waitlist`,
    method: 'POST',
    connections: clients,
    durationSeconds: seconds,
    amount,
    headers: {
      ...BROWSER_HEADERS,
      apikey: anonKey,
      authorization: `Bearer ${anonKey}`,
      'content-type': 'application/json',
      'content-profile': 'public',
      prefer: 'return=minimal',
      ...extraHeaders,
    },
    // autocannon's ids are unique across runs, so runs never collide on the unique e-mail.
    body: '{"email":"bench-[<id>]@example.com"}',
  })
}

/** Through HTTP, the key check, the role switch and the insert, for `seconds`. */
export function httpInserts(
  url: string,
  anonKey: string,
  clients: number,
  seconds: number,
  headers?: Record<string, string>,
) {
  return insertLoad(url, anonKey, clients, seconds, undefined, undefined, headers)
}

/** As httpInserts, from `addresses` client addresses in turn (X-Forwarded-For, for a trusting server). */
export function insertsFromAddresses(addresses: number) {
  const addressOf = (n: number) => ({
    'x-forwarded-for': `10.0.${(n % addresses) >> 8}.${(n % addresses) & 255}`,
  })
  return (url: string, anonKey: string, clients: number, seconds: number, amount?: number) =>
    insertLoad(url, anonKey, clients, seconds, amount, addressOf)
}

/** Exactly `amount` inserts (the memory figure is taken after a known load). */
export function fixedInserts(url: string, anonKey: string, clients: number, amount: number) {
  return insertLoad(url, anonKey, clients, 0, amount)
}

export interface BaselineServer {
  url: string
  pid: number
  stop(): Promise<void>
}

/** bench/baseline-server.ts as its own process, on the given database. */
export async function startBaseline(databaseUrl: string): Promise<BaselineServer> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = once(child, 'exit')
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baseline server did not start:\n${output}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk
      if (output.includes('Serving http://')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`baseline server exited with code ${code}:\n${output}`))
    })
  })
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

export interface InsertComparison {
  /** Every run, in the order run (ours, baseline, ours, baseline…). */
  ours: LoadResult[]
  baseline: LoadResult[]
  bestOurs: LoadResult
  bestBaseline: LoadResult
  /** bestOurs / bestBaseline. */
  ratio: number
}

const bad = (result: LoadResult) => result.non2xx + result.errors
const best = (runs: LoadResult[]) =>
  runs.reduce((top, run) => (run.requestsPerSecond > top.requestsPerSecond ? run : top))

/**
 * Our server against the baseline on the same database, alternated `rounds` times so drift on a
 * shared machine hits both alike; the best run of each is compared. A 1 s warm-up each goes first.
 */
export async function compareInserts(
  ours: { url: string; anonKey: string },
  baselineUrl: string,
  clients: number,
  seconds: number,
  rounds: number,
  oursLoad: (
    url: string,
    anonKey: string,
    clients: number,
    seconds: number,
  ) => Promise<LoadResult> = httpInserts,
): Promise<InsertComparison> {
  await oursLoad(ours.url, ours.anonKey, clients, 1)
  await httpInserts(baselineUrl, ours.anonKey, clients, 1)
  const oursRuns: LoadResult[] = []
  const baselineRuns: LoadResult[] = []
  for (let round = 0; round < rounds; round++) {
    oursRuns.push(await oursLoad(ours.url, ours.anonKey, clients, seconds))
    baselineRuns.push(await httpInserts(baselineUrl, ours.anonKey, clients, seconds))
  }
  const bestOurs = best(oursRuns)
  const bestBaseline = best(baselineRuns)
  return {
    ours: oursRuns,
    baseline: baselineRuns,
    bestOurs,
    bestBaseline,
    ratio: bestOurs.requestsPerSecond / bestBaseline.requestsPerSecond,
  }
}

/** How many requests of a set of runs did not get a 2xx. */
export const failedRequests = (runs: LoadResult[]) => runs.reduce((sum, run) => sum + bad(run), 0)
