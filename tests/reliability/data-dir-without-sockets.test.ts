import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshDataDir } from '../../harness/data-dir'
import { startTestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { type Mount, mountWithoutSockets } from '../support/no-socket-mount'
import { insertStatus } from './support'

const FALLBACK =
  /DATA_DIR's file system cannot hold a Unix socket \(bind: ENOSYS\); PostgreSQL's socket is in (\/\S+) instead/

// A whole server, cluster and all, on a FUSE mount that has no mknod (tests/support/fuse-no-sockets.py,
// as s3fs or sshfs): every byte PostgreSQL writes goes through it, so this is a slow suite.
describe('a DATA_DIR on a file system that cannot hold a Unix socket', () => {
  let mount: Mount
  let data: { dir: string; cleanup(): Promise<void> }
  beforeAll(async () => {
    mount = await mountWithoutSockets()
    data = await freshDataDir(mount.dir)
  })
  afterAll(async () => {
    await data?.cleanup()
    await mount?.unmount()
  })

  it('starts, serves, is found by the CLI beside it, and starts again', async () => {
    for (const round of [1, 2]) {
      const server = await startTestServer({ dataDir: data.dir, timeout: 90_000 })
      try {
        const socketDir = FALLBACK.exec(server.output())?.[1]
        expect(socketDir, server.output()).toBeDefined()
        expect(socketDir?.startsWith(data.dir)).toBe(false)
        expect(await insertStatus(server, `fuse.${round}@example.com`)).toBe(201)
        const count = await runCli(server.env, 'count')
        expect(count.stdout.trim()).toBe(String(round))
      } finally {
        await server.stop()
      }
    }
  })
})
