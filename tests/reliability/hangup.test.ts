import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postmasterPid, startTestServer, type TestServer } from '../../harness/test-server'
import { insertStatus } from './support'

// A closed terminal or a lost SSH session sends SIGHUP: the server must stop as on SIGTERM, not die
// and leave PostgreSQL running (it has a process group of its own) until the next start.
describe('SIGHUP', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server?.cleanup())

  it('finishes, stops PostgreSQL cleanly and exits 0; the next start finds the row and nothing left running', async () => {
    expect(await insertStatus(server, 'before.hangup@example.com')).toBe(201)
    const postmaster = await postmasterPid(server.dataDir)
    expect(postmaster).toBeGreaterThan(0)
    const exited = once(server.process, 'exit')
    server.process.kill('SIGHUP')
    await exited
    expect(server.process.exitCode, server.output()).toBe(0)
    expect(server.output()).toContain('SIGHUP: finishing in-flight requests, then closing the database...')
    expect(await postmasterPid(server.dataDir)).toBeUndefined()

    const again = await startTestServer({ dataDir: server.dataDir })
    try {
      expect(again.output()).not.toContain('left running')
      expect(await insertStatus(again, 'before.hangup@example.com')).toBe(409)
    } finally {
      await again.stop()
    }
  })
})
