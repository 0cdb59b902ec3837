import type { ServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'
import { openDatabase } from '../../server/db/open-database'
import { openPostgres } from '../../server/db/postgres-driver'

/** Asked of the embedded database while no server runs it. */
export class SiteStoppedError extends Error {
  override name = 'SiteStoppedError'
}

export const SITE_STOPPED = 'The site is stopped: start it (npm start) and the studio reconnects by itself.'

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
export async function openStudioDatabase(env: ServerEnv): Promise<StudioDatabase> {
  if (env.DATABASE_URL) {
    const opened = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR })
    return { db: opened.db, stopped: async () => false, close: () => opened.close() }
  }
  const besideServer = new ClusterFollower(env.DATA_DIR)
  return {
    db: besideServer.database(),
    stopped: async () => (await runningClusterUrl(env.DATA_DIR)) === undefined,
    close: () => besideServer.close(),
  }
}

/** A pool on the running server's cluster, replaced when the cluster's address changes. */
class ClusterFollower {
  private pool: { url: string; db: Promise<Database> } | undefined

  constructor(private readonly dataDir: string) {}

  async current(): Promise<Database> {
    const url = await runningClusterUrl(this.dataDir)
    if (url === this.pool?.url && this.pool) return this.pool.db
    // Replaced with no await in between, so calls arriving together share the one new pool.
    void this.close().catch(() => {})
    if (!url) throw new SiteStoppedError(SITE_STOPPED)
    // Two connections, as the CLI beside a server: the server keeps the rest.
    const db = openPostgres(url, 2)
    const pool = { url, db }
    this.pool = pool
    db.catch(() => {
      if (this.pool === pool) this.pool = undefined // the next call tries again
    })
    return db
  }

  async close(): Promise<void> {
    const pool = this.pool
    this.pool = undefined
    await (await pool?.db.catch(() => undefined))?.close()
  }

  /** A Database whose every call goes to the pool of the moment. */
  database(): Database {
    const on = () => this.current()
    return {
      query: async (sql, params) => (await on()).query(sql, params),
      run: async (sql, params) => (await on()).run(sql, params),
      exec: async (sql) => (await on()).exec(sql),
      transaction: async (fn) => (await on()).transaction(fn),
      copyTransaction: async (fn) => (await on()).copyTransaction(fn),
      asRole: async (claims, fn) => (await on()).asRole(claims, fn),
      runAsRole: async (claims, statement) => (await on()).runAsRole(claims, statement),
      listen: async (channel, onNotify) => (await on()).listen(channel, onNotify),
      close: () => this.close(),
    }
  }
}
