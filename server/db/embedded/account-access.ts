import { spawnSync } from 'node:child_process'
import { StartupError } from '../../base/startup-error'
import type { PostgresBinaries } from './binaries'
import type { ClusterAccount } from './cluster-account'
import { clusterEnvironment } from './cluster-env'

/**
 * Options for a process of PostgreSQL's: run as the cluster's account (when this process is
 * root), with the minimal environment.
 */
export function asAccount(account: ClusterAccount | undefined) {
  return { env: clusterEnvironment(), ...(account ? { uid: account.uid, gid: account.gid } : {}) }
}

/** Whether the account can enter `dir` and run `program`: every directory above both must let it through. */
export function reaches(account: ClusterAccount, dir: string, program: string): boolean {
  const probe = spawnSync('sh', ['-c', 'cd "$1" && test -x "$2"', 'sh', dir, program], {
    ...asAccount(account),
    stdio: 'ignore',
  })
  return probe.status === 0
}

/** The data directory must be reachable too; that one is the operator's to fix. */
export function checkAccountReaches(
  dir: string,
  binaries: PostgresBinaries,
  account: ClusterAccount | undefined,
) {
  if (!account || reaches(account, dir, binaries.postgres)) return
  throw new StartupError(
    `PostgreSQL runs as the account "${account.name}" (uid ${account.uid}; it refuses to run as root), and that ` +
      `account cannot enter ${dir}. Make every directory above it traversable (chmod o+x), choose another ` +
      'DATA_DIR, or run the server as a normal user.',
  )
}
