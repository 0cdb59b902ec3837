import {
  type Database,
  embeddedClusterExists,
  openDatabase,
  runningServerDatabaseUrl,
} from '../../server/admin/runtime'
import { loadServerEnv, type ServerEnv } from '../../server/boot/owner-assembly'

// Beside a running server, its cluster; else this command starts the cluster (holding DATA_DIR
// meanwhile).
async function run<T>(env: ServerEnv, migrate: boolean, fn: (db: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'waitlist CLI',
    besideServer: true,
    migrate,
  })
  try {
    return await fn(database.db)
  } finally {
    await database.close()
  }
}

/**
 * Runs one command against the database the server uses, and closes it afterwards. Any pending
 * migration is applied first, as the server would.
 */
export function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  return run(loadServerEnv(), true, fn)
}

/**
 * Runs fn on the database as it is, for `import --dry-run`, which writes nothing at all: never
 * migrated, and an embedded cluster that does not exist yet is not created (fn does not run and
 * this gives undefined: there is no list, so nothing on it).
 */
export async function withDatabaseAsIs<T>(fn: (db: Database) => Promise<T>): Promise<T | undefined> {
  const env = loadServerEnv()
  const running = env.DATABASE_URL ? undefined : await runningServerDatabaseUrl(env.DATA_DIR)
  if (!env.DATABASE_URL && !running && !embeddedClusterExists(env.DATA_DIR)) return undefined
  return run(env, false, fn)
}

/**
 * As withDatabase, for the commands that read or write the erased addresses' hashes (remove,
 * import, suppressed, unsuppress): the hash's key is written first, as a server writes it at
 * start, so they work on a database no server of this version has started yet.
 */
export function withKeyedDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const env = loadServerEnv()
  return run(env, true, async (db) => {
    // Loaded here, not for every command: the keys' code (jose) is needed by these four alone.
    const { keySourcesOf, loadApiKeys, writeSuppressionKey } = await import('../../server/admin/settings')
    const keys = await loadApiKeys({ ...keySourcesOf(env), db })
    await writeSuppressionKey(db, keys.secret)
    return fn(db)
  })
}
