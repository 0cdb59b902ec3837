import { execFile, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { StartupError } from '../../startup-error'
import type { PostgresBinaries } from './binaries'
import type { ClusterAccount } from './cluster-account'

const run = promisify(execFile)

/** Options for a process run as the cluster's account (none when this process is not root). */
export function asAccount(account: ClusterAccount | undefined) {
  return account ? { uid: account.uid, gid: account.gid } : {}
}

/** Whether the account can enter `dir` and run `program`: every directory above both must let it through. */
function reaches(account: ClusterAccount, dir: string, program: string): boolean {
  const probe = spawnSync('sh', ['-c', 'cd "$1" && test -x "$2"', 'sh', dir, program], {
    ...asAccount(account),
    stdio: 'ignore',
  })
  return probe.status === 0
}

/**
 * The binaries, where the account PostgreSQL runs as can execute them. A project checked out under
 * a private directory (/root, a mode-0700 temporary directory) hides node_modules from that
 * account, so the binaries are copied once to a world-readable place in the system's temp dir.
 */
export async function binariesFor(
  binaries: PostgresBinaries,
  account: ClusterAccount | undefined,
  log: (message: string) => void,
): Promise<PostgresBinaries> {
  if (!account || reaches(account, '/', binaries.postgres)) return binaries
  const native = dirname(dirname(binaries.postgres))
  const packageDir = dirname(native)
  const copy = join(
    tmpdir(),
    `lab-site-${packageDir.split('/').slice(-1)[0]}-${account.uid}-${Buffer.from(packageDir).toString('hex').slice(-16)}`,
  )
  const moved = (path: string) => join(copy, 'bin', path.split('/').at(-1) ?? '')
  const copied = {
    initdb: moved(binaries.initdb),
    postgres: moved(binaries.postgres),
    pgCtl: moved(binaries.pgCtl),
  }
  if (!existsSync(copied.postgres)) {
    log(`The account "${account.name}" cannot reach ${native}; copying the PostgreSQL binaries to ${copy}.`)
    const building = `${copy}.${process.pid}`
    await rm(building, { recursive: true, force: true })
    await mkdir(dirname(building), { recursive: true })
    await run('cp', ['-a', native, building])
    await run('chmod', ['-R', 'a+rX,go-w', building])
    await rename(building, copy).catch(() => rm(building, { recursive: true, force: true }))
  }
  if (!reaches(account, '/', copied.postgres))
    throw new StartupError(`The account "${account.name}" cannot run PostgreSQL from ${copy} either.`)
  return copied
}

/** The data directory must be reachable too; that one is the operator's to fix. */
export function checkAccountReaches(
  dir: string,
  binaries: PostgresBinaries,
  account: ClusterAccount | undefined,
) {
  if (!account || reaches(account, dir, binaries.postgres)) return
  throw new StartupError(
    `PostgreSQL runs as the account "${account.name}" (it refuses to run as root), and that account cannot ` +
      `enter ${dir}. Make every directory above it traversable (chmod o+x), choose another DATA_DIR, or run ` +
      'the server as a normal user.',
  )
}
