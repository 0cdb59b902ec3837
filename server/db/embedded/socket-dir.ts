import { chmod, chown, lstat, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ClusterAccount } from './cluster-account'

/** sun_path holds 108 bytes with its final NUL; PostgreSQL refuses a longer socket path. */
export const SOCKET_PATH_LIMIT = 107

export function socketPath(dir: string, port: number): string {
  return join(dir, `.s.PGSQL.${port}`)
}

async function makePrivate(dir: string, account: ClusterAccount | undefined) {
  await chmod(dir, 0o700)
  if (account) await chown(dir, account.uid, account.gid)
}

/**
 * The directory of the cluster's socket, made fresh: mode 0700, owned by the account PostgreSQL
 * runs as, so only it and root get in; the password never crosses TCP, where whoever holds the
 * port when PostgreSQL is down would hear it. DATA_DIR/socket unless that path is too long for a
 * socket, then a new private directory in the temporary directory. `reuse` keeps the directory of
 * the cluster being restarted, so the server's connections find it in the same place.
 */
export async function prepareSocketDir(options: {
  preferred: string
  port: number
  account: ClusterAccount | undefined
  log: (message: string) => void
  reuse?: string
}): Promise<string> {
  const { preferred, port, account } = options
  if (options.reuse && options.reuse !== preferred) {
    const stats = await lstat(options.reuse).catch(() => undefined)
    if (stats?.isDirectory() && !stats.isSymbolicLink()) return options.reuse
  }
  const length = Buffer.byteLength(socketPath(preferred, port))
  if (length <= SOCKET_PATH_LIMIT) {
    await rm(preferred, { recursive: true, force: true })
    await mkdir(preferred, { mode: 0o700 })
    await makePrivate(preferred, account)
    return preferred
  }
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-pg-'))
  await makePrivate(dir, account)
  options.log(
    `DATA_DIR's path is too long for PostgreSQL's Unix socket (${length} bytes, the limit is ${SOCKET_PATH_LIMIT}); ` +
      `its socket is in ${dir} instead, a private directory made for this run. A shorter DATA_DIR avoids this.`,
  )
  return dir
}

/**
 * Whether a socket directory named in postmaster.pid is the cluster's own: a real directory of
 * the cluster's account that no one else may enter. The CLI then trusts what answers there.
 */
export async function isPrivateSocketDir(dir: string, uid: number | undefined): Promise<boolean> {
  if (!dir.startsWith('/')) return false
  const stats = await lstat(dir).catch(() => undefined)
  if (!stats?.isDirectory()) return false
  return (uid === undefined || stats.uid === uid) && (stats.mode & 0o077) === 0
}
