import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Mount } from './no-socket-mount'

const run = promisify(execFile)

/**
 * A real mount where bind(2) of a Unix socket fails with EPERM, made with nothing outside npm and
 * the base system: the kernel's bpf file system (bpffs) has directories, chmod and chown, but no
 * mknod, so a socket cannot be created in it, as on s3fs or some bind mounts. It holds no regular
 * files, so a whole server cannot run on it: the FUSE mount (no-socket-mount.ts, test:slow) can.
 * Needs root, as mounting does; the test runs as root, as the server suites do.
 */
export async function mountBpf(): Promise<Mount> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-bpffs-'))
  try {
    await run('mount', ['-t', 'bpf', 'bpf', dir])
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    const reason = (error as { stderr?: string }).stderr?.trim() || String(error)
    throw new Error(`Mounting a bpf file system (root and a kernel with BPF) failed: ${reason}`)
  }
  return {
    dir,
    async unmount() {
      await run('umount', [dir]).catch(() => run('umount', ['-l', dir]))
      await rm(dir, { recursive: true, force: true })
    },
  }
}
