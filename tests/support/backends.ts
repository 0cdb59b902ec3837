import { createDatabase, type PostgresCluster, startPostgres } from './postgres-cluster'
import { startTestServer, type TestServer, type TestServerOptions } from './test-server'

export type BackendName = 'embedded' | 'postgres'

/**
 * The two ways the server reaches Postgres, both run by every contract suite: the embedded cluster
 * it starts under DATA_DIR, and DATABASE_URL (a cluster the tests start from the same binaries).
 */
export const BACKENDS: { name: BackendName }[] = [{ name: 'embedded' }, { name: 'postgres' }]

let cluster: Promise<PostgresCluster> | undefined
let databases = 0

function sharedCluster(): Promise<PostgresCluster> {
  cluster ??= startPostgres()
  return cluster
}

/** One cluster per test file (worker), a new database per server, copied from the migrated template. */
export async function startServerOn(
  backend: BackendName,
  options: TestServerOptions = {},
): Promise<TestServer> {
  if (backend === 'embedded') return startTestServer(options)
  const url = await createDatabase(await sharedCluster(), `suite_${process.pid}_${++databases}`)
  return startTestServer({ ...options, env: { DATABASE_URL: url, ...options.env } })
}

/** Stops the file's Postgres cluster, if one was started. */
export async function stopBackends(): Promise<void> {
  if (cluster) await (await cluster).stop()
  cluster = undefined
}

/** A URL of a new database in the file's cluster, for tests that run two servers on one Postgres. */
export async function sharedPostgresUrl(options: { migrated?: boolean } = {}): Promise<string> {
  return createDatabase(await sharedCluster(), `shared_${process.pid}_${++databases}`, options)
}
