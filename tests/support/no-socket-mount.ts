import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('./fuse-no-sockets.py', import.meta.url))
// Debian's own Python, where python3-fusepy installs (not a python3 that PATH may find first).
const PYTHON = '/usr/bin/python3'

export interface Mount {
  /** The mounted directory: a bind(2) of a Unix socket in it fails with ENOSYS. */
  dir: string
  unmount(): Promise<void>
}

const mounted = (dir: string) => readFileSync('/proc/mounts', 'utf8').includes(` ${dir} fuse`)

async function stop(child: ChildProcess, dir: string, source: string) {
  if (mounted(dir)) await run('umount', [dir]).catch(() => run('umount', ['-l', dir]))
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
  await rm(dir, { recursive: true, force: true })
  await rm(source, { recursive: true, force: true })
}

/**
 * A real FUSE mount whose file system has no mknod, as s3fs, sshfs and other FUSE mounts: a
 * DATA_DIR on it can hold files but no Unix socket. Needs /dev/fuse and Debian's python3-fusepy
 * (installed by .ci/run).
 */
export async function mountWithoutSockets(): Promise<Mount> {
  const hasFusepy = await run(PYTHON, ['-c', 'import fusepy']).then(
    () => true,
    () => false,
  )
  if (!existsSync('/dev/fuse') || !hasFusepy)
    throw new Error(
      'A FUSE mount needs /dev/fuse and python3-fusepy: .ci/run installs them (apt-get install fuse3 python3-fusepy)',
    )
  const source = await mkdtemp(join(tmpdir(), 'lab-site-fuse-source-'))
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-fuse-'))
  // As a DATA_DIR's parent: root's own, and passable for the account PostgreSQL runs as.
  await chmod(source, 0o755)
  const child = spawn(PYTHON, [SCRIPT, source, dir], { stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  child.stderr?.on('data', (chunk) => {
    errors += chunk
  })
  for (let i = 0; i < 100 && !mounted(dir); i++) {
    if (child.exitCode !== null) break
    await sleep(50)
  }
  if (!mounted(dir)) {
    await stop(child, dir, source)
    throw new Error(`The FUSE file system did not mount: ${errors.trim() || 'no answer in 5 s'}`)
  }
  return { dir, unmount: () => stop(child, dir, source) }
}
