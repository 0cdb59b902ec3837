import { lstat, mkdtemp, rm, stat } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clusterAccount } from '../../server/db/embedded/cluster-account'
import { isPrivateSocketDir, prepareSocketDir } from '../../server/db/embedded/socket-dir'
import type { Mount } from './no-socket-mount'

export const bindCode = (path: string) =>
  new Promise<string | undefined>((resolve) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code))
    server.listen(path, () => server.close(() => resolve(undefined)))
  })

/**
 * ADR 031's fallback, checked on a real mount that refuses sockets: `npm test` on bpffs (EPERM,
 * nothing to install), `npm run test:slow` on FUSE without mknod (ENOSYS, python3-fusepy).
 */
export function describeSocketFallback(title: string, mount: () => Promise<Mount>, refusal: string): void {
  describe(title, () => {
    let mounted: Mount
    beforeAll(async () => {
      mounted = await mount()
    })
    afterAll(async () => {
      await mounted?.unmount()
    })

    it(`the mount really refuses a socket: bind fails with ${refusal}`, async () => {
      expect(await bindCode(join(mounted.dir, '.s.test'))).toBe(refusal)
    })

    it('falls back to a private directory outside it, says so in one line, and keeps the checks', async () => {
      const account = clusterAccount()
      const lines: string[] = []
      const preferred = join(mounted.dir, 'socket')
      const dir = await prepareSocketDir({ preferred, port: 5432, account, log: (line) => lines.push(line) })
      try {
        expect(dir.startsWith(tmpdir())).toBe(true)
        expect(lines).toEqual([
          `DATA_DIR's file system cannot hold a Unix socket (bind: ${refusal}); PostgreSQL's socket is in ${dir} instead, a private directory made for this run.`,
        ])
        const stats = await stat(dir)
        expect(stats.mode & 0o777).toBe(0o700)
        expect(stats.uid).toBe(account?.uid ?? process.getuid?.())
        expect(await isPrivateSocketDir(dir, account?.uid ?? process.getuid?.())).toBe(true)
        // Nothing is left in DATA_DIR that looks like a socket directory.
        expect(await lstat(preferred).catch(() => undefined)).toBeUndefined()
        // And a socket binds there.
        expect(await bindCode(join(dir, '.s.test'))).toBeUndefined()
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    it('a DATA_DIR that holds sockets keeps DATA_DIR/socket, with no line', async () => {
      const parent = await mkdtemp(join(tmpdir(), 'lab-site-sockets-'))
      const lines: string[] = []
      try {
        const preferred = join(parent, 'socket')
        const dir = await prepareSocketDir({
          preferred,
          port: 5432,
          account: clusterAccount(),
          log: (line) => lines.push(line),
        })
        expect(dir).toBe(preferred)
        expect(lines).toEqual([])
        expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700')
        expect(await bindCode(join(dir, '.s.test'))).toBeUndefined()
      } finally {
        await rm(parent, { recursive: true, force: true })
      }
    })
  })
}
