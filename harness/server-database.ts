import type { Queryable } from '../server/db/database'
import { runningClusterUrl } from '../server/db/embedded/embedded-cluster'
import { openPostgres } from '../server/db/postgres-driver'
import type { TestServer } from './test-server'

/** What a test keeps of a server to reach its database again. */
export type ServerDatabase = Pick<TestServer, 'dataDir' | 'env'>

/**
 * Runs fn as the owner on the database a test server uses, as it is at this moment: its
 * DATABASE_URL, else the embedded cluster running in its data dir (after a restart, the new one).
 * One connection, closed before this returns: none is left to hold a cluster that must stop.
 */
export async function withServerDatabase<T>(
  server: ServerDatabase,
  fn: (db: Queryable) => Promise<T>,
): Promise<T> {
  const url = server.env.DATABASE_URL ?? (await runningClusterUrl(server.dataDir))
  if (!url) throw new Error(`no PostgreSQL runs for the server on ${server.dataDir}`)
  const db = await openPostgres(url, 1)
  try {
    return await fn(db)
  } finally {
    await db.close()
  }
}
