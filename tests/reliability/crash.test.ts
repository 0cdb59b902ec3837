import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../support/test-server'
import { expectNoEmail, healthy, insertStatus, pool, rowCount, tally } from './support'

const CLIENTS = 20
const ROUNDS = 3
/** Acknowledged inserts per round before the kill; each client stops after PER_CLIENT_MAX attempts. */
const KILL_AFTER = 150
const PER_CLIENT_MAX = 100

interface Stream {
  acknowledged: string[]
  attempted: number
  done: Promise<void>
}

/** CLIENTS loops inserting fresh addresses until the server stops answering (or a bound is hit). */
function insertStream(server: TestServer, prefix: string, onAck: (count: number) => void): Stream {
  const stream: Stream = { acknowledged: [], attempted: 0, done: Promise.resolve() }
  const client = async (c: number) => {
    for (let n = 0; n < PER_CLIENT_MAX; n++) {
      const email = `${prefix}.c${c}.n${n}@example.com`
      stream.attempted++
      const status = await insertStatus(server, email).catch(() => 0)
      if (status === 0) return // connection refused or reset: the server is gone
      expect(status).toBe(201)
      stream.acknowledged.push(email)
      onAck(stream.acknowledged.length)
    }
  }
  stream.done = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c))).then(() => undefined)
  return stream
}

describe('crash safety on PGlite', () => {
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

  it(`kill -9 mid-stream, ${ROUNDS} times: every acknowledged insert survives and the server serves again`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      let kill: Promise<void> | undefined
      const stream = insertStream(server, `crash.r${round}`, (count) => {
        if (count >= KILL_AFTER && !kill) kill = server.kill()
      })
      await stream.done
      await (kill ?? server.kill())
      expect(server.process.signalCode).toBe('SIGKILL')
      acknowledged.push(...stream.acknowledged)

      // Same data dir: the stale lock is taken over and PGlite recovers from its WAL.
      const previous = server
      server = await startTestServer({ dataDir, timeout: 60_000 })
      expect(server.output()).not.toMatch(/in use by another/)
      const recheck = await pool(
        CLIENTS,
        acknowledged.map((email) => () => insertStatus(server, email)),
      )
      const rows = await rowCount(server)
      console.log(
        `crash round ${round}: ${stream.attempted} attempted, ${stream.acknowledged.length} acknowledged before kill -9;` +
          ` after restart ${rows} rows, re-inserts of all ${acknowledged.length} acknowledged →`,
        tally(recheck),
      )
      expect(tally(recheck)).toEqual({ 409: acknowledged.length })
      expect(rows).toBeGreaterThanOrEqual(acknowledged.length)
      expect(await healthy(server)).toBe(true)
      expect(await insertStatus(server, `after.r${round}@example.com`)).toBe(201)
      acknowledged.push(`after.r${round}@example.com`)
      expect(previous.process.pid).not.toBe(server.process.pid)
      expectNoEmail(previous.output())
    }
  })

  it('SIGTERM under load: finishes in-flight requests, checkpoints, exits 0, loses nothing', async () => {
    const stream = insertStream(server, 'term', (count) => {
      if (count === 50) void server.stop()
    })
    await stream.done
    await server.stop()
    expect(server.process.exitCode).toBe(0)
    expect(server.output()).not.toMatch(/longer than 10 s/)
    server = await startTestServer({ dataDir, timeout: 60_000 })
    const recheck = await pool(
      CLIENTS,
      stream.acknowledged.map((email) => () => insertStatus(server, email)),
    )
    expect(tally(recheck)).toEqual({ 409: stream.acknowledged.length })
  })

  it('a second server on the same data dir refuses to start, and the first keeps serving', async () => {
    const second = startTestServer({ dataDir, timeout: 60_000 })
    await expect(second).rejects.toThrow(/data directory .* is in use by another server \(pid \d+\)/)
    expect(await healthy(server)).toBe(true)
    expect(await insertStatus(server, 'after.lock@example.com')).toBe(201)
    expectNoEmail(server.output())
  })
})
