import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { createSecretFile, readSecretFile } from '../secret-file'

/** Where the embedded cluster keeps its parts inside DATA_DIR. */
export function clusterFiles(dataDir: string) {
  const root = resolve(dataDir)
  return {
    root,
    /** PGDATA, owned by the account PostgreSQL runs as, mode 0700. */
    cluster: join(root, 'postgres'),
    /** The superuser's password, generated at first start, mode 0600. */
    password: join(root, 'postgres-password'),
    /** The JWT secret generated at first start when JWT_SECRET is unset (server/auth/api-keys.ts). */
    jwtSecret: join(root, 'jwt-secret'),
    /** The port the cluster last listened on, tried first at the next start. */
    port: join(root, 'postgres.port'),
    /** PostgreSQL's own log: start-up errors, crash recovery, checkpoints. */
    log: join(root, 'postgres.log'),
    /** Its Unix socket, in a directory only the cluster's account (and root) may enter. */
    socket: join(root, 'socket'),
    /**
     * WAL segments PostgreSQL archived, waiting for the server to take them off the machine: there
     * only while continuous backup is on (BACKUP_URL), owned by the cluster's account.
     */
    spool: join(root, 'backup-spool'),
    /** Where the previous embedded database (PGlite) lived. */
    oldPglite: join(root, 'pglite'),
  }
}

/** The postmaster.pid lines this code reads (PostgreSQL's pidfile.h, LOCK_FILE_LINE_*). */
export interface PostmasterPid {
  pid: number
  dataDir: string
  port: number
  socketDir: string
  /** The first of listen_addresses, empty when it listens on its socket alone. */
  listenAddress: string
  status: string
}

export async function readPostmasterPid(clusterDir: string): Promise<PostmasterPid | undefined> {
  const text = await readFile(join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => undefined)
  if (!text) return undefined
  const lines = text.split('\n')
  return {
    pid: Number(lines[0]),
    dataDir: lines[1] ?? '',
    port: Number(lines[3]),
    socketDir: (lines[4] ?? '').trim(),
    listenAddress: (lines[5] ?? '').trim(),
    status: (lines[7] ?? '').trim(),
  }
}

/** Reads the cluster's password, creating it (mode 0600) on first use. */
export async function clusterPassword(path: string): Promise<string> {
  const existing = await readSecretFile(path)
  if (existing) return existing
  // An empty file (a first start cut short) is replaced.
  if (existing === '') await rm(path)
  const password = randomBytes(24).toString('base64url')
  await createSecretFile(path, `${password}\n`)
  return password
}

/** Through the cluster's Unix socket: what the server and the CLI use. */
export function socketUrl(password: string, socketDir: string, port: number, database = 'postgres'): string {
  return `postgres://postgres:${encodeURIComponent(password)}@${encodeURIComponent(socketDir)}:${port}/${database}`
}

/** Over TCP on loopback: what `npm run waitlist -- url` prints for GUI tools. */
export function tcpUrl(password: string, port: number, database = 'postgres'): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`
}
