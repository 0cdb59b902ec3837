import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { startEmbeddedCluster } from '../../server/db/embedded/embedded-cluster'
import { migrate } from '../../server/db/migrate'

export { freePort } from '../../server/db/embedded/ports'

import { openPostgres } from '../../server/db/postgres-driver'

export interface PostgresCluster {
  url: string
  stop(): Promise<void>
}

const TEMPLATE = 'suite_template'

/**
 * A throwaway PostgreSQL 18 server for the DATABASE_URL half of the suites: the same npm-shipped
 * binaries and start-up code as the embedded default (as root it runs as `postgres`), in a
 * temporary directory, with one database migrated once as the template every test database copies.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-postgres-'))
  // mkdtemp makes 0700 directories; as root, the account PostgreSQL runs as must get through.
  await chmod(dir, 0o755)
  const cluster = await startEmbeddedCluster(dir, () => {})
  const admin = new pg.Client({ connectionString: cluster.url })
  await admin.connect()
  await admin.query(`create database ${TEMPLATE}`)
  await admin.end()
  const template = await openPostgres(urlOf(cluster.url, TEMPLATE), 1)
  await migrate(template)
  await template.close()
  return {
    url: cluster.url,
    async stop() {
      await cluster.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

function urlOf(clusterUrl: string, database: string): string {
  return clusterUrl.replace(/\/postgres$/, `/${database}`)
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
