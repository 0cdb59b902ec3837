import { join } from 'node:path'
import { lockDataDir } from './data-dir-lock'
import type { Database } from './database'
import { migrate } from './migrate'
import { openPglite } from './pglite-driver'
import { openPostgres } from './postgres-driver'

export interface OpenedDatabase {
  db: Database
  applied: string[]
  /** Closes the database and releases the data-dir lock. */
  close(): Promise<void>
}

/** DATABASE_URL when set, else PGlite under DATA_DIR; migrated either way. */
export async function openDatabase(options: {
  databaseUrl?: string
  dataDir: string
  purpose?: string
}): Promise<OpenedDatabase> {
  if (options.databaseUrl) {
    const db = await openPostgres(options.databaseUrl)
    const applied = await migrate(db)
    return { db, applied, close: () => db.close() }
  }
  const unlock = await lockDataDir(options.dataDir, options.purpose)
  try {
    const db = await openPglite(join(options.dataDir, 'pglite'))
    const applied = await migrate(db)
    return {
      db,
      applied,
      async close() {
        try {
          await db.close()
        } finally {
          await unlock()
        }
      },
    }
  } catch (error) {
    await unlock()
    throw error
  }
}
