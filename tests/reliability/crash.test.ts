import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postmasterPid, startTestServer, type TestServer } from '../../harness/test-server'
import { isProcessAlive } from '../../server/db/embedded/process-alive'
import { expectNoEmail, healthy, insert, insertStatus, pool, rowCount, tally } from './support'

const CLIENTS = 20
/** Acknowledged inserts before the fault; each client stops after PER_CLIENT_MAX attempts. */
const FAULT_AFTER = 150
const PER_CLIENT_MAX = 100

interface Stream {
  acknowledged: string[]
  attempted: number
  done: Promise<void>
}

/**
 * CLIENTS loops inserting fresh addresses until the server stops answering (or a bound is hit).
 * Only a 201 is an acknowledgement; a 503 while the database is down is an honest refusal.
 */
function insertStream(server: TestServer, prefix: string, onAck: (count: number) => void): Stream {
  const stream: Stream = { acknowledged: [], attempted: 0, done: Promise.resolve() }
  const client = async (c: number) => {
    for (let n = 0; n < PER_CLIENT_MAX; n++) {
      const email = `${prefix}.c${c}.n${n}@example.com`
      stream.attempted++
      const response = await insert(server, { email }).catch(() => undefined)
      if (!response) return // connection refused or reset: the server is gone
      const { status } = response
      const body = await response.text()
      expect([201, 503], body).toContain(status)
      if (status !== 201) continue
      stream.acknowledged.push(email)
      onAck(stream.acknowledged.length)
    }
  }
  stream.done = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c))).then(() => undefined)
  return stream
}

/** A process that exited but that nobody reaps: its pid answers signal 0, yet it holds nothing. */
async function makeZombie(): Promise<{ pid: number; stop(): void }> {
  // The shell execs into `sleep`, which never waits for the background child it inherits.
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const pid = await new Promise<number>((resolve) =>
    parent.stdout.once('data', (data) => resolve(Number(String(data)))),
  )
  await sleep(200)
  return { pid, stop: () => parent.kill('SIGKILL') }
}

describe('crashes of any part of the embedded default', () => {
  let server: TestServer
  let dataDir: string
  const acknowledged: string[] = []
  beforeAll(async () => {
    server = await startTestServer()
    dataDir = server.dataDir
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  /** Restarts on the same DATA_DIR and checks that every acknowledged address is still there. */
  async function restartAndCheck(label: string) {
    const previous = server
    server = await startTestServer({ dataDir, timeout: 60_000 })
    expect(server.output()).not.toMatch(/in use by another/)
    const recheck = await pool(
      CLIENTS,
      acknowledged.map((email) => () => insertStatus(server, email)),
    )
    const rows = await rowCount(server)
    console.log(
      `${label}: after restart ${rows} rows; re-inserts of all ${acknowledged.length} acknowledged →`,
      tally(recheck),
    )
    expect(tally(recheck)).toEqual({ 409: acknowledged.length })
    expect(await healthy(server)).toBe(true)
    expect(await insertStatus(server, `after.${label}@example.com`)).toBe(201)
    acknowledged.push(`after.${label}@example.com`)
    expectNoEmail(previous.output())
  }

  it('kill -9 of the process group mid-stream: every acknowledged insert survives, the server serves again', async () => {
    let kill: Promise<void> | undefined
    const stream = insertStream(server, 'group', (count) => {
      if (count >= FAULT_AFTER && !kill) kill = server.killGroup()
    })
    await stream.done
    await (kill ?? server.killGroup())
    expect(server.process.signalCode).toBe('SIGKILL')
    acknowledged.push(...stream.acknowledged)
    await restartAndCheck('group')
  })

  it('kill -9 of Node alone: the orphaned postmaster is shut down cleanly at the next start', async () => {
    const stream = insertStream(server, 'node', () => {})
    await sleep(300)
    await server.kill()
    await stream.done
    acknowledged.push(...stream.acknowledged)
    const orphan = await postmasterPid(dataDir)
    expect(orphan, 'the postmaster outlives the Node process').toBeDefined()
    await restartAndCheck('node')
    expect(server.output()).toMatch(/left running by a server that stopped abruptly/)
    expect(isProcessAlive(orphan ?? 0)).toBe(false)
  })

  it('kill -9 of Node and of PostgreSQL at once (a supervisor killing everything)', async () => {
    const stream = insertStream(server, 'all', () => {})
    await sleep(300)
    const postmaster = await postmasterPid(dataDir)
    await server.killGroup()
    if (postmaster) process.kill(-postmaster, 'SIGKILL')
    await stream.done
    acknowledged.push(...stream.acknowledged)
    await restartAndCheck('all')
  })

  it('kill -9 of the postmaster alone: /healthz answers 503, then the server restarts it and loses nothing', async () => {
    const stream = insertStream(server, 'postmaster', () => {})
    await sleep(300)
    const postmaster = await postmasterPid(dataDir)
    expect(postmaster).toBeDefined()
    process.kill(postmaster ?? 0, 'SIGKILL')
    const seen = new Set<number>()
    for (
      const end = Date.now() + 20_000;
      Date.now() < end && !(seen.has(503) && seen.has(200));
      await sleep(20)
    ) {
      const status = (await fetch(`${server.url}/healthz`).catch(() => undefined))?.status
      if (status && (status === 503 || seen.has(503))) seen.add(status)
    }
    await stream.done
    expect([...seen].sort()).toEqual([200, 503])
    expect(server.output()).toMatch(/stopped unexpectedly \(SIGKILL\); starting it again/)
    expect(server.output()).toMatch(/PostgreSQL is back/)
    acknowledged.push(...stream.acknowledged)
    const recheck = await pool(
      CLIENTS,
      acknowledged.map((email) => () => insertStatus(server, email)),
    )
    expect(tally(recheck)).toEqual({ 409: acknowledged.length })
    expectNoEmail(server.output())
  })

  it('SIGTERM under load: finishes in-flight requests, stops PostgreSQL cleanly, exits 0, loses nothing', async () => {
    const stream = insertStream(server, 'term', (count) => {
      if (count === 50) void server.stop()
    })
    await stream.done
    await server.stop()
    expect(server.process.exitCode, server.output()).toBe(0)
    expect(await postmasterPid(dataDir)).toBeUndefined()
    acknowledged.push(...stream.acknowledged)
    await restartAndCheck('term')
    // A clean shutdown needs no crash recovery at the next start.
  })

  it('a second server on the same data dir refuses to start, and the first keeps serving', async () => {
    const second = startTestServer({ dataDir, timeout: 60_000 })
    await expect(second).rejects.toThrow(/data directory .* is in use by another server \(pid \d+\)/)
    expect(await healthy(server)).toBe(true)
    expect(await insertStatus(server, 'after.lock@example.com')).toBe(201)
    expectNoEmail(server.output())
  })

  it('locks left by a zombie nobody reaped never block a restart', async () => {
    await server.kill()
    const postmaster = await postmasterPid(dataDir)
    if (postmaster) process.kill(-postmaster, 'SIGKILL')
    while (postmaster && isProcessAlive(postmaster)) await sleep(20)
    const zombie = await makeZombie()
    try {
      expect(isProcessAlive(zombie.pid)).toBe(false)
      const lock = JSON.stringify({ pid: zombie.pid, purpose: 'server', since: new Date().toISOString() })
      await writeFile(join(dataDir, 'server.lock'), lock)
      await restartAndCheck('zombie')
    } finally {
      zombie.stop()
    }
  })
})
