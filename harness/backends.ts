import { freshDataDir } from './data-dir'
import { createDatabase, type PostgresCluster, startPostgres, uniqueDatabaseName } from './postgres-cluster'
import { startTestServer, type TestServer, type TestServerOptions } from './test-server'
import { slotCluster } from './worker-cluster'

export type BackendName = 'embedded' | 'postgres'

/**
 * The two ways the server reaches Postgres, both run by every contract suite: the embedded cluster
 * it starts under DATA_DIR, and DATABASE_URL (a cluster the tests start from the same binaries).
 */
export const BACKENDS: { name: BackendName }[] = [{ name: 'embedded' }, { name: 'postgres' }]

/**
 * The backends the studio's browser suite runs on: the embedded cluster in npm test, both in
 * npm run test:slow (E2E_BACKENDS=all). The page is the same on either; what differs is the server
 * under it, and npm test checks the studio's API on both (studio-api.test.ts). The second run cost
 * npm test about 25 s of two busy cores (issue 52).
 */
export const STUDIO_E2E_BACKENDS = BACKENDS.filter(
  ({ name }) => process.env.E2E_BACKENDS === 'all' || name === 'embedded',
)

let cluster: Promise<PostgresCluster> | undefined

/** The worker slot's cluster under Vitest (see worker-cluster.ts), else one of this process's own. */
function sharedCluster(): Promise<PostgresCluster> {
  cluster ??= slotCluster().then((slot) => slot ?? startPostgres())
  return cluster
}

/** A new database per server, copied from the migrated template. */
export async function startServerOn(
  backend: BackendName,
  options: TestServerOptions = {},
): Promise<TestServer> {
  if (backend === 'embedded') return startTestServer(options)
  const url = await createDatabase(await sharedCluster(), uniqueDatabaseName('suite'))
  return startTestServer({ ...options, env: { DATABASE_URL: url, ...options.env } })
}

/** Stops the process's own Postgres cluster, if it started one (a worker slot's outlives the file). */
export async function stopBackends(): Promise<void> {
  if (cluster) await (await cluster).stop()
  cluster = undefined
}

/** A URL of a new database in the shared cluster, for tests that run two servers on one Postgres. */
export async function sharedPostgresUrl(options: { migrated?: boolean } = {}): Promise<string> {
  return createDatabase(await sharedCluster(), uniqueDatabaseName('shared'), options)
}

/**
 * A server on a Postgres cluster of its own, for a test that takes that cluster away under it
 * (a shared one serves other files after this one).
 */
export async function startServerOnOwnPostgres(
  options: TestServerOptions = {},
): Promise<{ server: TestServer; stopPostgres(): Promise<void> }> {
  const own = await startPostgres()
  try {
    const url = await createDatabase(own, uniqueDatabaseName('own'))
    const server = await startTestServer({ ...options, env: { DATABASE_URL: url, ...options.env } })
    return { server, stopPostgres: () => own.stop() }
  } catch (error) {
    await own.stop()
    throw error
  }
}

/**
 * A migrated database of this backend with no server on it, as a server leaves one it created and
 * stopped: `env` names it for the CLI (DATA_DIR, or DATABASE_URL).
 */
export async function emptyDatabaseOn(
  backend: BackendName,
): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (backend === 'postgres')
    return { env: { DATABASE_URL: await sharedPostgresUrl() }, cleanup: async () => {} }
  const fresh = await freshDataDir()
  return { env: { DATA_DIR: fresh.dir }, cleanup: fresh.cleanup }
}
