import { createDatabase, findPostgresBin, type PostgresCluster, startPostgres } from './postgres-cluster'
import { startTestServer, type TestServer, type TestServerOptions } from './test-server'

export type BackendName = 'pglite' | 'postgres'

/** The two databases every contract suite runs on. Postgres is skipped, loudly, only without binaries. */
export const BACKENDS: { name: BackendName; skip: string | undefined }[] = [
  { name: 'pglite', skip: undefined },
  {
    name: 'postgres',
    skip: findPostgresBin()
      ? undefined
      : 'no PostgreSQL server binaries (apt-get install -y postgresql, or set PG_BIN): the real-Postgres half is skipped',
  },
]

for (const backend of BACKENDS) if (backend.skip) console.warn(`SKIPPED ${backend.name}: ${backend.skip}`)

let cluster: Promise<PostgresCluster> | undefined
let databases = 0

/** One cluster per test file (worker), a new database per server, each built from the migrations. */
export async function startServerOn(
  backend: BackendName,
  options: TestServerOptions = {},
): Promise<TestServer> {
  if (backend === 'pglite') return startTestServer(options)
  cluster ??= startPostgres()
  const url = await createDatabase(await cluster, `suite_${process.pid}_${++databases}`)
  return startTestServer({ ...options, env: { DATABASE_URL: url, ...options.env } })
}

/** Stops the file's Postgres cluster, if one was started. */
export async function stopBackends(): Promise<void> {
  if (cluster) await (await cluster).stop()
  cluster = undefined
}

/** A URL of a database in the same cluster, for tests that run two servers on one Postgres. */
export async function sharedPostgresUrl(): Promise<string> {
  cluster ??= startPostgres()
  return createDatabase(await cluster, `shared_${process.pid}_${++databases}`)
}
