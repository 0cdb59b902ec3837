/**
 * CPU time per insert, which a loaded machine disturbs far less than a rate: the server process's,
 * and PostgreSQL's (the postmaster, its live children and those it has reaped), over a fixed number
 * of inserts with 50 clients after a warm-up. Checkouts given as ROOT run their own server code,
 * alternated, on the same machine at the same time (default: this one).
 *
 *   npx tsx bench/cpu-per-insert.ts [--mode embedded|postgres|limited] [--rounds 3] [ROOT...]
 *
 * `postgres`: DATABASE_URL, the rate limit off; `limited`: DATABASE_URL with the rate limit on (its
 * buckets in the database, a limit never reached, 1,000 client addresses in turn).
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createDatabase, startPostgres } from '../harness/postgres-cluster'
import { ROOT } from '../server/base/paths'
import { fixedInserts, insertsFromAddresses } from './inserts'
import { clusterCpuMicros as clusterCpu, cpuMicros as cpu } from './process-cpu'

const INSERTS = 8000
const WARM_UP = 2000
const CLIENTS = 50
const LIMITED = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_BURST: '100000000',
  TRUST_PROXY_HEADER: 'x-forwarded-for',
}

async function measure(root: string, mode: string) {
  const { startTestServer, postmasterPid } = await import(`${root}/harness/test-server.ts`)
  let env: Record<string, string> = { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0' }
  let postmaster: number | undefined
  let stopCluster = async () => {}
  if (mode !== 'embedded') {
    const cluster = await startPostgres()
    stopCluster = () => cluster.stop()
    env.DATABASE_URL = await createDatabase(cluster, 'cpu_per_insert')
    postmaster = Number(readFileSync(`${cluster.dir}/postgres/postmaster.pid`, 'utf8').split('\n')[0])
    if (mode === 'limited') env = { ...env, ...LIMITED }
  }
  const server = await startTestServer({ env, bundled: true })
  try {
    postmaster ??= (await postmasterPid(server.dataDir)) as number
    const fromAddresses = insertsFromAddresses(1000)
    const run = (amount: number) =>
      mode === 'limited'
        ? fromAddresses(server.url, server.anonKey, CLIENTS, 0, amount)
        : fixedInserts(server.url, server.anonKey, CLIENTS, amount)
    await run(WARM_UP)
    const [node, pg] = [cpu(server.process.pid), clusterCpu(postmaster)]
    const load = await run(INSERTS)
    return {
      node: (cpu(server.process.pid) - node) / INSERTS,
      postgres: (clusterCpu(postmaster) - pg) / INSERTS,
      perSecond: load.requestsPerSecond,
      failed: load.non2xx + load.errors,
    }
  } finally {
    await server.cleanup()
    await stopCluster()
  }
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { mode: { type: 'string', default: 'embedded' }, rounds: { type: 'string', default: '3' } },
})
const roots = positionals.length ? positionals : [ROOT]
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const root of roots) {
    const { node, postgres, perSecond, failed } = await measure(root, values.mode ?? 'embedded')
    console.log(
      `${values.mode} ${root} round ${round}: Node ${node.toFixed(0)} µs, PostgreSQL ${postgres.toFixed(0)} µs per insert` +
        ` (${perSecond.toFixed(0)} per s${failed ? `, ${failed} not 2xx` : ''})`,
    )
  }
}
