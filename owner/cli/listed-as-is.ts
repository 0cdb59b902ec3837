import { loadServerEnv } from '../../server/boot/env'
import { clusterFiles } from '../../server/db/embedded/cluster-files'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'
import { isInitialized } from '../../server/db/embedded/init-cluster'
import { openDatabase } from '../../server/db/open-database'
import { countListed } from '../../server/waitlist/admin/waitlist-admin'

/**
 * How many of `emails` are on the list, for `import --dry-run`, which writes nothing at all: the
 * database as it is, never migrated, and an embedded cluster that does not exist yet is not
 * created (nothing is listed there). A database without the waitlist table lists nothing.
 */
export async function countListedAsIs(emails: string[]): Promise<number> {
  const env = loadServerEnv()
  const running = env.DATABASE_URL ? undefined : await runningClusterUrl(env.DATA_DIR)
  if (!env.DATABASE_URL && !running && !isInitialized(clusterFiles(env.DATA_DIR).cluster)) return 0
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    purpose: 'waitlist CLI',
    besideServer: true,
    migrate: false,
  })
  try {
    const [found] = await database.db.query<{ table: string | null }>(
      "select to_regclass('public.waitlist')::text as table",
    )
    return found?.table ? await countListed(database.db, emails) : 0
  } finally {
    await database.close()
  }
}
