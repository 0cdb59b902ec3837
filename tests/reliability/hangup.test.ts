import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { watchOutput } from '../../harness/child-output'
import { freshDataDir } from '../../harness/data-dir'
import { entryArgs } from '../../harness/test-bundle'
import { postmasterPid, startTestServer, type TestServer } from '../../harness/test-server'
import { ROOT } from '../../server/base/paths'
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

// Ctrl-C while the server is still starting (migrations, the warm-up): Node used to die at once,
// its signal handlers not yet set, and PostgreSQL ran on until the next start.
describe('a signal while the server starts', () => {
  it('stops once the start is done: PostgreSQL cleanly stopped, exit 0, "Serving" never said', async () => {
    const data = await freshDataDir()
    try {
      const child = spawn(process.execPath, entryArgs('main'), {
        cwd: ROOT,
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: '0',
          DATA_DIR: data.dir,
          SKIP_BUILD: '1',
          WARM_UP_MS: '3000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const { found, output } = watchOutput(child, /Serving (http:\/\/\S+)/, 60_000, 'server')
      found.catch(() => {}) // it is never to say Serving: the output is what is read
      const exited = once(child, 'exit')
      // The cluster is up and the three seconds' warm-up has begun, or is about to.
      for (const end = Date.now() + 60_000; !(await postmasterPid(data.dir)); await sleep(50))
        if (Date.now() > end) throw new Error(`no postmaster under ${data.dir}:\n${output()}`)
      child.kill('SIGTERM')
      await exited
      expect(child.exitCode, output()).toBe(0)
      expect(output()).toContain('SIGTERM: stopping once the start is done (again to stop at once)...')
      expect(output()).toContain('SIGTERM: finishing in-flight requests, then closing the database...')
      expect(output()).not.toContain('Serving')
      expect(await postmasterPid(data.dir)).toBeUndefined()
    } finally {
      await data.cleanup()
    }
  })
})
