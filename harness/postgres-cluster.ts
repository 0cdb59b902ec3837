import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { runningClusterUrl, startEmbeddedCluster } from '../server/db/embedded/embedded-cluster'
import { freshDataDir } from './data-dir'

export { freePort } from '../server/db/embedded/ports'

export interface PostgresCluster {
  url: string
  /** The DATA_DIR-shaped folder it runs in (its PGDATA is `postgres/` inside). */
  dir: string
  stop(): Promise<void>
}

const TEMPLATE = 'suite_template'

/**
 * A throwaway PostgreSQL 18 server for the DATABASE_URL half of the suites: the same npm-shipped
 * binaries and start-up code as the embedded default (as root it runs as `postgres`), in a
 * temporary directory, with one migrated database as the template every test database copies.
 * It starts from a copy of the migrated embedded template (harness/data-dir.ts), whose
 * `postgres` database already holds the schema: no initdb, no migration run.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const data = await freshDataDir()
  const cluster = await startEmbeddedCluster(data.dir, () => {})
  // CREATE DATABASE … TEMPLATE wants no one else in the source: the copy is made from template1.
  const admin = new pg.Client({ connectionString: urlOf(cluster.url, 'template1') })
  await admin.connect()
  await admin.query(`create database ${TEMPLATE} template postgres`)
  await admin.end()
  return {
    url: cluster.url,
    dir: data.dir,
    async stop() {
      await cluster.stop()
      await data.cleanup()
    },
  }
}

/**
 * The cluster a process of this test run started in `dir` and left running, so that later test
 * files reuse it (harness/worker-cluster.ts); its stop() is the run's to call, not theirs.
 */
export async function runningPostgres(dir: string): Promise<PostgresCluster | undefined> {
  const url = await runningClusterUrl(dir)
  return url ? { url, dir, stop: async () => {} } : undefined
}

function urlOf(clusterUrl: string, database: string): string {
  return clusterUrl.replace(/\/postgres(\?|$)/, `/${database}$1`)
}

/** A database name no other test file of the run uses, even on a cluster they share. */
export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
}

/**
 * A new database in the cluster. Migrated ones are copies of the template (CREATE DATABASE …
 * TEMPLATE, milliseconds); `migrated: false` gives an empty one, to run the migrations on.
 */
export async function createDatabase(
  cluster: PostgresCluster,
  name: string,
  options: { migrated?: boolean } = {},
): Promise<string> {
  const client = new pg.Client({ connectionString: cluster.url })
  await client.connect()
  const safe = name.replace(/[^a-z0-9_]/gi, '_')
  try {
    await client.query(`create database ${safe}${options.migrated === false ? '' : ` template ${TEMPLATE}`}`)
  } finally {
    await client.end()
  }
  return urlOf(cluster.url, safe)
}
