import { spawn } from 'node:child_process'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../harness/postgres-cluster'
import { type ProcessMemory, processMemory } from './process-memory'

/**
 * The stack's memory as `npm start` leaves it (issue 63, item 5): every process from npm down
 * (npm, node, the postmaster, its workers and the pool's backends), PSS summed, 10 s after
 * /healthz first answers 200 and again 20 s later, then after 2,000 signups and after 1,000 page
 * loads. Needs a build (`npm run build`).
 *
 *   npx tsx bench/idle-stack.ts      (BENCH_VERBOSE=1: npm start's own output too)
 */
const SETTLE_MS = 10_000
const REDUCER_MS = 20_000
const dataDir = await mkdtemp(join(tmpdir(), 'idle-stack-'))
// As root, PostgreSQL runs as an account of its own, which must get through (operations.md).
await chmod(dataDir, 0o755)
const port = await freePort()
const origin = `http://127.0.0.1:${port}`
const stack = spawn('npm', ['start'], {
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '0',
  },
  stdio: process.env.BENCH_VERBOSE ? 'inherit' : 'ignore',
  detached: true,
})
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const line = (when: string, memory: ProcessMemory) =>
  console.log(
    `${when}: PSS ${memory.pssMiB.toFixed(1)} MiB in ${memory.processes} processes (RSS sum ${memory.rssMiB.toFixed(0)})`,
  )

try {
  const started = performance.now()
  while ((await fetch(`${origin}/healthz`).catch(() => undefined))?.status !== 200) {
    if (performance.now() - started > 120_000) throw new Error('npm start was not ready within 2 minutes')
    await pause(200)
  }
  await pause(SETTLE_MS)
  line(`idle 10 s after ready (load ${loadavg()[0]?.toFixed(1)})`, processMemory(stack.pid ?? 0, true))
  // V8's memory reducer gives back what the warm-up's burst grew about 8-20 s after the last
  // collection, once allocation has stopped: the same idle stack, read again past it.
  await pause(REDUCER_MS)
  line('idle 30 s after ready', processMemory(stack.pid ?? 0, true))
  for (let i = 0; i < 2_000; i++) {
    const response = await fetch(`${origin}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `email=idle.${i}%40example.com`,
    })
    await response.arrayBuffer()
  }
  await pause(SETTLE_MS)
  line('after 2,000 signups by the form', processMemory(stack.pid ?? 0, true))
  for (let i = 0; i < 1_000; i++) await (await fetch(`${origin}/`)).arrayBuffer()
  await pause(SETTLE_MS)
  line('after 1,000 page loads', processMemory(stack.pid ?? 0, true))
} finally {
  process.kill(-(stack.pid ?? 0), 'SIGTERM')
  await pause(3_000)
  await rm(dataDir, { recursive: true, force: true })
}
