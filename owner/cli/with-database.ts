import { loadServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import { openDatabase } from '../../server/db/open-database'

/** Runs one command against the database the server uses, and closes it afterwards. */
export async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const env = loadServerEnv()
  // Beside a running server, its cluster; else this command starts the cluster (holding DATA_DIR
  // meanwhile). Either way any pending migration is applied first, as the server would.
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'waitlist CLI',
    besideServer: true,
  })
  try {
    return await fn(database.db)
  } finally {
    await database.close()
  }
}
