/**
 * Measures waitlist inserts through the real HTTP API, as the page sends them (anon key,
 * `POST /rest/v1/waitlist`, return=minimal): one client in sequence, then 50 concurrent clients,
 * on each test backend (the embedded cluster under DATA_DIR, and DATABASE_URL on a throwaway
 * cluster from the same binaries). Servers run on 127.0.0.1 and free ports, started exactly as the
 * tests start them. Not part of `npm test`.
 *
 *   npx tsx scripts/insert-rate.ts [--inserts 2000] [--clients 50]
 */
import { cpus, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { percentile } from '../bench/stats'
import { BACKENDS, startServerOn, stopBackends } from '../harness/backends'
import type { TestServer } from '../harness/test-server'
import { postWaitlist } from '../harness/waitlist-api'

interface Result {
  backend: string
  clients: number
  inserts: number
  failures: number
  perSecond: number
  p50: number
  p99: number
}

async function insertOnce(server: TestServer, email: string): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now()
  const response = await postWaitlist(server, { email })
  await response.arrayBuffer()
  return { ms: performance.now() - started, ok: response.status === 201 }
}

async function measure(server: TestServer, backend: string, clients: number, inserts: number, run: string) {
  const latencies: number[] = []
  let failures = 0
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < inserts) {
        const i = next++
        const { ms, ok } = await insertOnce(server, `bench-${run}-${i}@example.com`)
        latencies.push(ms)
        if (!ok) failures++
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  return {
    backend,
    clients,
    inserts,
    failures,
    perSecond: inserts / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  } satisfies Result
}

async function bench(
  backend: string,
  server: TestServer,
  inserts: number,
  clients: number,
): Promise<Result[]> {
  const run = `${backend}-${Date.now().toString(36)}`
  await measure(server, backend, 10, 100, `${run}-warm`) // JIT, pools and caches warm
  return [
    await measure(server, backend, 1, inserts, `${run}-seq`),
    await measure(server, backend, clients, inserts, `${run}-par`),
  ]
}

function table(results: Result[]): string {
  const rows = [
    ['backend', 'clients', 'inserts', 'failed', 'inserts/s', 'p50 ms', 'p99 ms'],
    ...results.map((r) => [
      r.backend,
      String(r.clients),
      String(r.inserts),
      String(r.failures),
      r.perSecond.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
    ]),
  ]
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? []
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join(' | ')} |`
  return [
    line(rows[0] ?? []),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n')
}

async function main() {
  const { values } = parseArgs({
    options: { inserts: { type: 'string', default: '2000' }, clients: { type: 'string', default: '50' } },
  })
  const inserts = Number(values.inserts)
  const clients = Number(values.clients)
  if (!Number.isInteger(inserts) || inserts < 1 || !Number.isInteger(clients) || clients < 1) {
    throw new Error('--inserts and --clients take positive integers')
  }
  // The server's defaults, request log line included, as `npm start` runs it.
  const env: Record<string, string> = {}
  const results: Result[] = []

  try {
    for (const { name } of BACKENDS) {
      const server = await startServerOn(name, { env })
      try {
        results.push(...(await bench(name, server, inserts, clients)))
      } finally {
        await server.cleanup()
      }
    }
  } finally {
    await stopBackends()
  }

  // Client and server share the machine: say how busy it was, so figures from a loaded box read as such.
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
  console.log(
    `\nWaitlist inserts through POST /rest/v1/waitlist (anon key, return=minimal), Node ${process.version}`,
  )
  console.log(`${cpus().length} CPUs, load average at the end ${load}\n`)
  console.log(table(results))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
