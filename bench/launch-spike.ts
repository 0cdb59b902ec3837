import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshDataDir } from '../harness/data-dir'
import { type SmtpSink, startSmtpSink } from '../harness/smtp-sink'
import { bundleForTests } from '../harness/test-bundle'
import { startTestServer, type TestServer } from '../harness/test-server'
import { runCli } from '../harness/waitlist-cli'
import { runningClusterUrl, startEmbeddedCluster } from '../server/db/embedded/embedded-cluster'
import { pageSignupHeaders } from '../server/http/warm-up'
import { BROWSER_HEADERS, type LoadResult } from './http-load'
import { type BaselineServer, startBaseline } from './inserts'
import { runOpenLoad } from './open-load'
import { median } from './stats'
import type { Row, Track } from './table'

/**
 * A launch post's spike (issue 52): page loads and signups at once, each from an address of its own
 * behind a trusted proxy header, with 100 invitations going out; our server against the minimal
 * node:http + pg server (bench/baseline-server.ts) on the same kind of database. Warm: one server
 * each on one cluster, alternated round by round. Just started: each round a new data dir, a
 * just-started cluster and a just-started server, for both.
 */
const PAGES_PER_SECOND = 1000
const SIGNUPS_PER_SECOND = 200
const INVITATIONS = 100
const LIMIT = 1.2

export interface SpikeOptions {
  seconds: number
  warmRounds: number
  coldRounds: number
}

export const SPIKE_DEFAULTS: SpikeOptions = { seconds: 20, warmRounds: 5, coldRounds: 3 }

interface SpikeRun {
  signups: LoadResult
  pages: LoadResult
}

interface Side {
  runs: SpikeRun[]
  signupP99Ms: number
  pageP99Ms: number
}

const side = (runs: SpikeRun[]): Side => ({
  runs,
  signupP99Ms: median(runs.map((run) => run.signups.p99Ms)),
  pageP99Ms: median(runs.map((run) => run.pages.p99Ms)),
})

let nextAddress = 0
/** A visitor's own address, never reused within a bench run (each is a first request). */
function address(): Record<string, string> {
  const n = nextAddress++
  return { 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` }
}

const BROWSER = {
  ...BROWSER_HEADERS,
  'user-agent':
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
}

let nextSpike = 0

/**
 * Both loads at once, for `seconds`, at their rates: visitors arrive at random moments whether or
 * not the site is slow (open-load.ts), the same moments for both servers.
 */
export async function spike(url: string, anonKey: string, seconds: number): Promise<SpikeRun> {
  const run = `${process.pid}-${nextSpike++}`
  const [pages, signups] = await Promise.all([
    runOpenLoad({
      url: `${url}/`,
      connections: 100,
      durationSeconds: seconds,
      ratePerSecond: PAGES_PER_SECOND,
      headers: { ...BROWSER, accept: 'text/html,application/xhtml+xml' },
      headersOf: address,
      seed: 1,
    }),
    runOpenLoad({
      url: `${url}/rest/v1/waitlist`,
      method: 'POST',
      connections: 50,
      durationSeconds: seconds,
      ratePerSecond: SIGNUPS_PER_SECOND,
      headers: { ...BROWSER, ...pageSignupHeaders(anonKey) },
      headersOf: address,
      bodyOf: (n) => `{"email":"spike-${run}-${n}@example.com"}`,
      seed: 2,
    }),
  ])
  return { pages, signups }
}

/**
 * The owner's `invite --next 100` on list people imported for it, just before the spike. Tagged
 * with the round, so the invitations go to them and not to the earlier rounds' signups, who
 * signed up before them and would come first.
 */
export async function queueInvitations(server: TestServer, round: string) {
  const file = join(tmpdir(), `spike-invitees-${process.pid}-${round}.csv`)
  const tag = `spike-${round}`
  const lines = Array.from({ length: INVITATIONS }, (_, i) => `invitee-${round}-${i}@example.com,${tag}`)
  await writeFile(file, `email,tags\n${lines.join('\n')}\n`)
  try {
    for (const args of [
      ['import', file],
      ['invite', '--next', String(INVITATIONS), '--tag', tag],
    ]) {
      const result = await runCli(server.env, ...args)
      if (result.code !== 0) throw new Error(`${args[0]} failed (${result.code}):\n${result.stderr}`)
    }
  } finally {
    await rm(file, { force: true })
  }
}

const invitationsTo = (sink: SmtpSink, round: string) =>
  sink.received.filter((mail) => mail.to.some((to) => to.startsWith(`invitee-${round}-`))).length

/** The list's size, as `count` prints it: signups acknowledged (201) are checked against it. */
async function listSize(server: TestServer): Promise<number> {
  const result = await runCli(server.env, 'count')
  const count = Number(result.stdout.match(/\d[\d,]*/)?.[0]?.replaceAll(',', ''))
  if (result.code !== 0 || !Number.isFinite(count)) throw new Error(`count failed:\n${result.stderr}`)
  return count
}

interface Checks {
  acknowledged: number
  stored: number
  invitationsOut: number
  failed: number
}

export async function spikeFigures(
  options: SpikeOptions,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  await bundleForTests()
  const sink = await startSmtpSink({ countOnly: true })
  track(() => sink.close())
  const env = {
    LOG_LEVEL: 'error',
    TRUST_PROXY_HEADER: 'x-forwarded-for',
    // The limit as shipped (the test servers turn it off): each visitor is under it, all are charged.
    RATE_LIMIT_PER_MINUTE: '10',
    // As shipped (the test servers make it short): a just-started server is ready once warm.
    WARM_UP_MS: '500',
    SMTP_URL: sink.url,
    MAIL_FROM: 'Lab <beta@example.com>',
    // 10 a second: the 100 invitations go out within the spike, beside its signups.
    MAIL_PER_MINUTE: '600',
  }

  log(`Spike, warm: ${options.warmRounds} alternated rounds of ${options.seconds} s`)
  const server = await startTestServer({ env, bundled: true })
  track(() => server.cleanup())
  const clusterUrl = await runningClusterUrl(server.dataDir)
  if (!clusterUrl) throw new Error(`no running cluster under ${server.dataDir}`)
  const baseline = await startBaseline(clusterUrl)
  track(() => baseline.stop())
  await spike(server.url, server.anonKey, 2)
  await spike(baseline.url, server.anonKey, 2)
  const warmOurs: SpikeRun[] = []
  const warmBaseline: SpikeRun[] = []
  const checks: Checks = { acknowledged: 0, stored: 0, invitationsOut: 0, failed: 0 }
  for (let round = 0; round < options.warmRounds; round++) {
    const name = `w${round}`
    await queueInvitations(server, name)
    const before = await listSize(server)
    const ours = await spike(server.url, server.anonKey, options.seconds)
    checks.invitationsOut += invitationsTo(sink, name)
    checks.acknowledged += ours.signups.ok
    checks.stored += (await listSize(server)) - before
    warmOurs.push(ours)
    warmBaseline.push(await spike(baseline.url, server.anonKey, options.seconds))
    log(`  round ${round + 1}: signups p99 ${ours.signups.p99Ms} / ${warmBaseline.at(-1)?.signups.p99Ms} ms`)
  }
  await baseline.stop()
  await server.cleanup()

  log(`Spike, just started: ${options.coldRounds} rounds, each server on a just-started cluster`)
  const coldOurs: SpikeRun[] = []
  const coldBaseline: SpikeRun[] = []
  for (let round = 0; round < options.coldRounds; round++) {
    const name = `c${round}`
    const fresh = await startTestServer({ env, bundled: true })
    track(() => fresh.cleanup())
    await queueInvitations(fresh, name)
    const ours = await spike(fresh.url, fresh.anonKey, options.seconds)
    checks.invitationsOut += invitationsTo(sink, name)
    checks.acknowledged += ours.signups.ok
    checks.stored += (await listSize(fresh)) - INVITATIONS
    coldOurs.push(ours)
    await fresh.cleanup()
    coldBaseline.push(await coldBaselineSpike(fresh.anonKey, options.seconds, track, log))
    log(`  round ${round + 1}: signups p99 ${ours.signups.p99Ms} / ${coldBaseline.at(-1)?.signups.p99Ms} ms`)
  }
  checks.failed = [...warmOurs, ...coldOurs].reduce(
    (sum, run) => sum + run.signups.non2xx + run.signups.errors + run.pages.non2xx + run.pages.errors,
    0,
  )
  return report(side(warmOurs), side(warmBaseline), side(coldOurs), side(coldBaseline), checks, options)
}

/**
 * The minimal server on a just-started cluster of its own: a copy of the same migrated template a
 * test server's data dir is (harness/data-dir.ts), started here, the minimal server on it at once.
 */
async function coldBaselineSpike(anonKey: string, seconds: number, track: Track, log: (m: string) => void) {
  const data = await freshDataDir()
  track(() => data.cleanup())
  const cluster = await startEmbeddedCluster(data.dir, log)
  track(() => cluster.stop())
  let baseline: BaselineServer | undefined
  try {
    baseline = await startBaseline(cluster.url)
    return await spike(baseline.url, anonKey, seconds)
  } finally {
    await baseline?.stop()
    await cluster.stop()
    await data.cleanup()
  }
}

function report(
  warmOurs: Side,
  warmBaseline: Side,
  coldOurs: Side,
  coldBaseline: Side,
  checks: Checks,
  options: SpikeOptions,
): { rows: Row[]; results: Record<string, unknown> } {
  const ratio = (ours: number, baseline: number) => ours / baseline
  const line = (label: string, ours: Side, baseline: Side, rounds: number): Row[] =>
    (['signup', 'page'] as const).map((kind) => {
      const key = kind === 'signup' ? 'signupP99Ms' : 'pageP99Ms'
      const value = ratio(ours[key], baseline[key])
      return {
        metric: `Spike ${label}, ${kind}s: median p99 ours / minimal server (${rounds} rounds of ${options.seconds} s)`,
        value: `${ours[key].toFixed(1)} / ${baseline[key].toFixed(1)} ms (x${value.toFixed(2)})`,
        target: `<= x${LIMIT}`,
        ok: value <= LIMIT,
      }
    })
  const expectedInvitations = INVITATIONS * (options.warmRounds + options.coldRounds)
  const rows: Row[] = [
    ...line('warm', warmOurs, warmBaseline, options.warmRounds),
    ...line('just started', coldOurs, coldBaseline, options.coldRounds),
    {
      metric: `Spike: signups acknowledged / stored; invitations out within their spike; failed requests`,
      value: `${checks.acknowledged} / ${checks.stored}; ${checks.invitationsOut} of ${expectedInvitations}; ${checks.failed}`,
      target: 'stored >= acknowledged; all; 0',
      ok:
        checks.stored >= checks.acknowledged &&
        checks.invitationsOut === expectedInvitations &&
        checks.failed === 0,
    },
  ]
  return { rows, results: { warmOurs, warmBaseline, coldOurs, coldBaseline, checks, options } }
}
