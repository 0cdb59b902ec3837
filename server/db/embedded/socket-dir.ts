import { chmod, chown, lstat, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
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

/** bind(2)'s answers on a file system with no sockets (FUSE mounts such as s3fs, some bind mounts). */
const NO_SOCKETS = new Set(['ENOSYS', 'EOPNOTSUPP', 'EPERM'])

/** Binds a Unix socket in dir and removes it: undefined when that works, else bind's error code. */
async function socketRefused(dir: string): Promise<string | undefined> {
  const probe = join(dir, '.s.probe')
  const server = createServer()
  const code = await new Promise<string | undefined>((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EIO'))
    server.listen(probe, () => server.close(() => resolve(undefined)))
  })
  // Only a bind that worked left a file; where it failed, some file systems refuse even to look
  // the name up (bpffs answers EPERM for a name with a dot), so nothing is touched there.
  if (code === undefined) await rm(probe, { force: true })
  return code && NO_SOCKETS.has(code) ? code : undefined
}

/** A new private directory in the temporary directory, for this run only. */
async function temporarySocketDir(account: ClusterAccount | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-pg-'))
  await makePrivate(dir, account)
  return dir
}

/**
 * The directory of the cluster's socket, made fresh: mode 0700, owned by the account PostgreSQL
 * runs as, so only it and root get in; the password never crosses TCP, where whoever holds the
 * port when PostgreSQL is down would hear it. DATA_DIR/socket unless that path is too long for a
 * socket or its file system cannot hold one, then a new private directory in the temporary
 * directory. `reuse` keeps the directory of the cluster being restarted, so the server's
 * connections find it in the same place.
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
  if (length > SOCKET_PATH_LIMIT) {
    const dir = await temporarySocketDir(account)
    options.log(
      `DATA_DIR's path is too long for PostgreSQL's Unix socket (${length} bytes, the limit is ${SOCKET_PATH_LIMIT}); ` +
        `its socket is in ${dir} instead, a private directory made for this run. A shorter DATA_DIR avoids this.`,
    )
    return dir
  }
  await rm(preferred, { recursive: true, force: true })
  await mkdir(preferred, { mode: 0o700 })
  await makePrivate(preferred, account)
  const refused = await socketRefused(preferred)
  if (!refused) return preferred
  await rm(preferred, { recursive: true, force: true })
  const dir = await temporarySocketDir(account)
  options.log(
    `DATA_DIR's file system cannot hold a Unix socket (bind: ${refused}); PostgreSQL's socket is in ${dir} instead, a private directory made for this run.`,
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
