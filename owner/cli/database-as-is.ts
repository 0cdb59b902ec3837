import { loadServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import { clusterFiles } from '../../server/db/embedded/cluster-files'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'
import { isInitialized } from '../../server/db/embedded/init-cluster'
import { openDatabase } from '../../server/db/open-database'

/**
 * Runs fn on the database as it is, for `import --dry-run`, which writes nothing at all: never
 * migrated, and an embedded cluster that does not exist yet is not created (fn does not run and
 * this gives undefined: there is no list, so nothing on it).
 */
export async function withDatabaseAsIs<T>(fn: (db: Database) => Promise<T>): Promise<T | undefined> {
  const env = loadServerEnv()
  const running = env.DATABASE_URL ? undefined : await runningClusterUrl(env.DATA_DIR)
  if (!env.DATABASE_URL && !running && !isInitialized(clusterFiles(env.DATA_DIR).cluster)) return undefined
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'waitlist CLI',
    besideServer: true,
    migrate: false,
  })
  try {
    return await fn(database.db)
  } finally {
    await database.close()
  }
}
