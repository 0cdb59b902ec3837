import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync } from 'node:fs'
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import pg from 'pg'
import { clusterAccount } from '../../server/db/embedded/cluster-account'
import { freePort } from '../../server/db/embedded/ports'

const run = promisify(execFile)

/** What `.ci/run` installs from Debian for these tests. */
const MISSING =
  "Debian's PostgreSQL and PgBouncer are not installed: `.ci/run` installs them (apt-get install postgresql pgbouncer)"

/** The newest server Debian installed: /usr/lib/postgresql/<major>/bin. */
export function debianPostgresBin(): string {
  const root = '/usr/lib/postgresql'
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : []
  const major = majors
    .sort((a, b) => Number(b) - Number(a))
    .find((m) => existsSync(join(root, m, 'bin/postgres')))
  if (!major) throw new Error(MISSING)
  return join(root, major, 'bin')
}

export interface DebianCluster {
  /** The superuser's URL over TCP (postgres, with a password). */
  adminUrl: string
  port: number
  major: number
  /** A URL of the same server for another user and database. */
  urlFor(user: string, password: string, database: string, port?: number): string
  stop(): Promise<void>
}

/** The account that runs PostgreSQL and PgBouncer: both refuse root. */
function account() {
  const found = clusterAccount()
  return found ? { uid: found.uid, gid: found.gid } : {}
}

async function privateDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  const { uid, gid } = account()
  if (uid !== undefined && gid !== undefined) await chown(dir, uid, gid)
  await chmod(dir, 0o700)
  return dir
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill(signal)
  await exited
}

async function waitForConnection(url: string, what: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`)
    const client = new pg.Client({ connectionString: url })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.end()
      return
    } catch {
      await client.end().catch(() => {})
      await sleep(100)
    }
  }
  throw new Error(`${what} did not accept connections in 30 s`)
}

/**
 * A cluster of Debian's PostgreSQL (not the packaged service: its own directory, a free port,
 * 127.0.0.1 only, password authentication), run as the `postgres` account; stop() removes it.
 */
export async function startDebianCluster(): Promise<DebianCluster> {
  const bin = debianPostgresBin()
  const dir = await privateDir('lab-site-debian-pg-')
  const password = `pw${Math.random().toString(36).slice(2)}`
  await writeFile(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 })
  const { uid, gid } = account()
  if (uid !== undefined && gid !== undefined) await chown(join(dir, 'pwfile'), uid, gid)
  const data = join(dir, 'data')
  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${join(dir, 'pwfile')}`],
    {
      ...account(),
      env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8' },
    },
  )
  const port = await freePort()
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
  ]
  args.push('-c', 'max_connections=200', '-c', 'fsync=on')
  const child = spawn(join(bin, 'postgres'), args, { ...account(), stdio: 'ignore', detached: true })
  const urlFor = (user: string, secret: string, database: string, at = port) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(secret)}@127.0.0.1:${at}/${database}`
  const adminUrl = urlFor('postgres', password, 'postgres')
  await waitForConnection(adminUrl, 'PostgreSQL', child)
  return {
    adminUrl,
    port,
    major: Number(/postgresql\/(\d+)\//.exec(bin)?.[1]),
    urlFor,
    async stop() {
      await stopChild(child, 'SIGINT')
      await rm(dir, { recursive: true, force: true })
    },
  }
}

export interface PgBouncer {
  port: number
  stop(): Promise<void>
}

/** PgBouncer in transaction mode in front of `cluster`, for the one user and password given. */
export async function startPgBouncer(
  cluster: DebianCluster,
  user: string,
  password: string,
): Promise<PgBouncer> {
  if (!existsSync('/usr/sbin/pgbouncer')) throw new Error(MISSING)
  const dir = await privateDir('lab-site-pgbouncer-')
  const port = await freePort()
  const { uid, gid } = account()
  const files = {
    'userlist.txt': `"${user}" "${password}"\n`,
    'pgbouncer.ini': [
      '[databases]',
      `* = host=127.0.0.1 port=${cluster.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 40',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  }
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, name), text, { mode: 0o600 })
    if (uid !== undefined && gid !== undefined) await chown(join(dir, name), uid, gid)
  }
  const child = spawn('/usr/sbin/pgbouncer', [join(dir, 'pgbouncer.ini')], {
    ...account(),
    stdio: 'ignore',
    detached: true,
  })
  await waitForConnection(cluster.urlFor(user, password, 'postgres', port), 'PgBouncer', child)
  return {
    port,
    async stop() {
      await stopChild(child, 'SIGINT')
      await rm(dir, { recursive: true, force: true })
    },
  }
}
