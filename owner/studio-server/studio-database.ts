import { type Database, openDatabase, ServerFollower } from '../../server/admin/runtime'

export interface StudioDatabase {
  db: Database
  /** No server runs the embedded cluster now (always false with DATABASE_URL). */
  stopped(): Promise<boolean>
  close(): Promise<void>
}

/**
 * The studio's database. With DATABASE_URL, that database, as every CLI command opens it. With the
 * embedded cluster, the one the running server started, found afresh for every call: the studio
 * never starts the cluster itself, so it never keeps `npm start` from taking DATA_DIR, and a studio
 * left open follows the server through its restarts (a new socket or password gets a new pool).
 * While no server runs, each call fails with SiteStoppedError (docs/decisions/055).
 */
export async function openStudioDatabase(env: {
  DATABASE_URL?: string
  DATA_DIR: string
}): Promise<StudioDatabase> {
  if (env.DATABASE_URL) {
    const opened = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR })
    return { db: opened.db, stopped: async () => false, close: () => opened.close() }
  }
  const besideServer = new ServerFollower(env.DATA_DIR)
  return {
    db: besideServer.database(),
    stopped: () => besideServer.stopped(),
    close: () => besideServer.close(),
  }
}
