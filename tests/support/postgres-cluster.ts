import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface PostgresCluster {
  url: string
  port: number
  stop(): Promise<void>
}

/** PG_BIN, else the newest Debian PostgreSQL under /usr/lib/postgresql; undefined if none. */
export function findPostgresBin(): string | undefined {
  const candidates = [process.env.PG_BIN]
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`))
  }
  return candidates.find((dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')))
}

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (typeof address !== 'object' || !address) throw new Error('could not pick a free port')
  return address.port
}

/**
 * A throwaway PostgreSQL cluster on 127.0.0.1 and a free port (about a second to start).
 * Postgres refuses to run as root, so as root it runs as the `postgres` user.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = findPostgresBin()
  if (!bin)
    throw new Error('no PostgreSQL server binaries found (apt-get install -y postgresql, or set PG_BIN)')
  const asRoot = userInfo().uid === 0
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-postgres-'))
  const as = async (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
    return run(file, argv, { timeout: 60_000 })
  }
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    await chown(dir, Number(stdout.trim()), Number(gid.trim()))
  }
  const data = join(dir, 'data')
  const port = await freePort()
  await as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  await as(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-w',
    '-l',
    join(dir, 'postgres.log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Creates a new empty database in the cluster, so each suite starts from the migrations. */
export async function createDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: cluster.url })
  await client.connect()
  await client.query(`create database "${name.replaceAll('"', '')}"`)
  await client.end()
  return cluster.url.replace(/\/postgres$/, `/${name}`)
}
