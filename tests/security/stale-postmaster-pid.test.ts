import { type ChildProcess, spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { freshDataDir } from '../../harness/data-dir'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { clusterFiles } from '../../server/db/embedded/cluster-files'
import { isProcessAlive } from '../../server/db/embedded/process-alive'
import { insertStatus } from '../reliability/support'

describe('a postmaster.pid left by a dead PostgreSQL, its pid now another process', () => {
  const cleanups: (() => Promise<unknown>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('is trusted for nothing: the CLI finds no server, and a start neither signals that process nor waits', async () => {
    const fresh = await freshDataDir()
    cleanups.push(() => fresh.cleanup())
    const files = clusterFiles(fresh.dir)
    // Alive, and naming the cluster on its command line, yet not PostgreSQL.
    const impostor: ChildProcess = spawn('sh', ['-c', 'sleep 60', files.cluster], { stdio: 'ignore' })
    cleanups.push(async () => impostor.kill('SIGKILL'))
    const lines = [
      impostor.pid,
      files.cluster,
      '1700000000',
      '5432',
      files.socket,
      '127.0.0.1',
      '0 0',
      'ready',
    ]
    await writeFile(`${files.cluster}/postmaster.pid`, `${lines.join('\n')}\n`)

    const url = await runCli({ DATA_DIR: fresh.dir }, 'url')
    expect(url).toMatchObject({ code: 1, stderr: expect.stringMatching(/No server is running/) })

    const server: TestServer = await startTestServer({ dataDir: fresh.dir })
    cleanups.push(() => server.stop())
    expect(server.output()).not.toMatch(/left running by a server that stopped abruptly/)
    expect(await insertStatus(server, 'after.stale.pid@example.com')).toBe(201)
    expect(isProcessAlive(impostor.pid ?? 0)).toBe(true)
  })
})
