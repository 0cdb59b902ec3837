import type { BackendName } from '../harness/backends'
import { createDatabase, startPostgres } from '../harness/postgres-cluster'
import { postmasterPid, startTestServer } from '../harness/test-server'
import { runningClusterUrl } from '../server/db/embedded/embedded-cluster'
import {
  compareInserts,
  failedRequests,
  fixedInserts,
  type InsertComparison,
  insertsFromAddresses,
  startBaseline,
} from './inserts'
import { mib, type ProcessMemory, processMemory } from './process-memory'
import type { Row, Track } from './table'

const CLIENTS = 50
const SECONDS = 8
const ROUNDS = 3
const MEMORY_INSERTS = 2000

const LABEL: Record<BackendName, string> = { embedded: 'embedded', postgres: 'DATABASE_URL' }

/**
 * On one backend: Node's memory after a 2,000-insert load (and, on the embedded cluster, its
 * Postgres processes apart), then our inserts against the node:http baseline on the same database.
 */
export async function insertFigures(
  backend: BackendName,
  serverEnv: Record<string, string>,
  track: Track,
  log: (message: string) => void,
): Promise<{ rows: Row[]; results: Record<string, unknown> }> {
  const label = LABEL[backend]
  let databaseUrl: string | undefined
  let env = serverEnv
  if (backend === 'postgres') {
    const cluster = await startPostgres()
    track(() => cluster.stop())
    databaseUrl = await createDatabase(cluster, 'bench_inserts')
    env = { ...serverEnv, DATABASE_URL: databaseUrl }
  }
  const server = await startTestServer({ env, bundled: true })
  track(() => server.cleanup())
  // On the embedded default, the baseline connects to the very cluster the server started.
  databaseUrl ??= await runningClusterUrl(server.dataDir)
  if (!databaseUrl) throw new Error(`no running cluster under ${server.dataDir}`)
  const serverPid = server.process.pid ?? 0

  log(`Inserts, ${label}: ${MEMORY_INSERTS} with ${CLIENTS} clients, then memory`)
  const memoryLoad = await fixedInserts(server.url, server.anonKey, CLIENTS, MEMORY_INSERTS)
  const node = processMemory(serverPid)
  const postmaster = backend === 'embedded' ? await postmasterPid(server.dataDir) : undefined
  const postgres = postmaster ? processMemory(postmaster, true) : undefined

  log(`Inserts, ${label}: ours and the node:http baseline alternated, ${ROUNDS} x ${SECONDS} s each`)
  const baseline = await startBaseline(databaseUrl)
  track(() => baseline.stop())
  const comparison = await compareInserts(server, baseline.url, CLIENTS, SECONDS, ROUNDS)
  const nodeAfterAll = processMemory(serverPid)
  const baselineMemory = processMemory(baseline.pid)
  await server.cleanup()
  const shared = backend === 'postgres' ? await sharedLimitFigures(env, baseline.url, track, log) : undefined
  await baseline.stop()

  const { bestOurs, bestBaseline, ratio } = comparison
  const failed = failedRequests([memoryLoad, ...comparison.ours])
  const rows: Row[] = [
    {
      metric: `Inserts ${label}: ours / node:http baseline (${CLIENTS} clients, best of ${ROUNDS}, alternated)`,
      value:
        `${bestOurs.requestsPerSecond.toFixed(0)} / ${bestBaseline.requestsPerSecond.toFixed(0)} per s ` +
        `(${(ratio * 100).toFixed(0)}%), p99 ${bestOurs.p99Ms} / ${bestBaseline.p99Ms} ms` +
        (failed ? `, ${failed} not 2xx` : ''),
      target: '>= 95% of the node:http baseline',
      ok: ratio >= 0.95 && failed === 0,
    },
    {
      metric: `Node RSS after ${MEMORY_INSERTS.toLocaleString('en')} inserts, ${label}`,
      value:
        `${mib(node.rssMiB)} (PSS ${mib(node.pssMiB)}; ${mib(nodeAfterAll.rssMiB)} after all runs; ` +
        `baseline ${mib(baselineMemory.rssMiB)})`,
      target: '<= 150 MiB',
      ok: node.rssMiB <= 150,
    },
  ]
  if (shared) rows.push(shared.row)
  if (postgres)
    rows.push({
      metric: `Postgres processes, ${label}, same moment`,
      value: describeMemory(postgres),
      target: '',
    })
  return {
    rows,
    results: {
      memoryLoad,
      memory: { node, nodeAfterAll, baseline: baselineMemory, postgres },
      ...comparison,
      sharedLimit: shared?.comparison,
    },
  }
}

/** How many client addresses the shared-limit run cycles through: one bucket row each. */
const ADDRESSES = 1000

/**
 * The same comparison with the rate limit on, its buckets in the database (ADR 064): a limit no
 * client reaches, each request from one of ADDRESSES addresses (a trusted X-Forwarded-For), so every
 * insert also charges a bucket, in a statement before its own. The baseline charges nothing.
 */
async function sharedLimitFigures(
  env: Record<string, string>,
  baselineUrl: string,
  track: Track,
  log: (message: string) => void,
): Promise<{ row: Row; comparison: InsertComparison }> {
  const limited = await startTestServer({
    env: {
      ...env,
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_BURST: '100000000',
      TRUST_PROXY_HEADER: 'x-forwarded-for',
    },
    bundled: true,
  })
  track(() => limited.cleanup())
  log(
    `Inserts, DATABASE_URL, the shared rate limit on: ours and the baseline alternated, ${ROUNDS} x ${SECONDS} s each`,
  )
  const load = insertsFromAddresses(ADDRESSES)
  const comparison = await compareInserts(limited, baselineUrl, CLIENTS, SECONDS, ROUNDS, load)
  await limited.cleanup()
  const { bestOurs, bestBaseline, ratio } = comparison
  const failed = failedRequests(comparison.ours)
  return {
    comparison,
    row: {
      metric: `Inserts DATABASE_URL, rate limit on (buckets in the database, ${ADDRESSES} addresses): ours / node:http baseline`,
      value:
        `${bestOurs.requestsPerSecond.toFixed(0)} / ${bestBaseline.requestsPerSecond.toFixed(0)} per s ` +
        `(${(ratio * 100).toFixed(0)}%), p99 ${bestOurs.p99Ms} / ${bestBaseline.p99Ms} ms` +
        (failed ? `, ${failed} not 2xx` : ''),
      target: 'reported (the baseline has no limit)',
    },
  }
}

const describeMemory = (memory: ProcessMemory) =>
  `${memory.processes} processes: PSS sum ${mib(memory.pssMiB)} ` +
  `(RSS sum ${mib(memory.rssMiB)}, shared memory counted per process)`
