import type { Database } from './database'
import { clusterFiles } from './embedded/cluster-files'
import { runningClusterTcpUrl, runningClusterUrl } from './embedded/embedded-cluster'
import { isInitialized } from './embedded/init-cluster'
import { openPostgres } from './postgres-driver'

/**
 * How the owner's tools reach the embedded cluster a running server started, through this one door
 * of server/db (with open-database.ts): they never start it while a server runs, never hold
 * DATA_DIR for long, and know nothing of the cluster's files.
 */

/** The running server's cluster, over its private socket; undefined while no server runs it. */
export const runningServerDatabaseUrl = (dataDir: string): Promise<string | undefined> =>
  runningClusterUrl(dataDir)

/** Its TCP address for other programs (psql, a GUI); '' while it listens on its socket only. */
export const runningServerTcpUrl = (dataDir: string): Promise<string | undefined> =>
  runningClusterTcpUrl(dataDir)

/** Whether DATA_DIR holds an embedded cluster at all (a dry run creates none). */
export const embeddedClusterExists = (dataDir: string): boolean =>
  isInitialized(clusterFiles(dataDir).cluster)

/** Asked of the embedded database while no server runs it. */
export class SiteStoppedError extends Error {
  override name = 'SiteStoppedError'
}

export const SITE_STOPPED = 'The site is stopped: start it (npm start) and the studio reconnects by itself.'

/**
 * A Database on the running server's cluster, found afresh for every call: whoever holds it never
 * starts the cluster, so never keeps `npm start` from taking DATA_DIR, and follows the server through
 * its restarts (a new socket or password gets a new pool). While no server runs, each call fails
 * with SiteStoppedError (docs/decisions/055).
 */
export class ServerFollower {
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

  /** Whether no server runs the cluster now. */
  async stopped(): Promise<boolean> {
    return (await runningClusterUrl(this.dataDir)) === undefined
  }

  /** A Database whose every call goes to the pool of the moment. */
  database(): Database {
    return this.#onEach(() => this.current())
  }

  #onEach(on: () => Promise<Database>): Database {
    return {
      query: async (sql, params) => (await on()).query(sql, params),
      run: async (sql, params) => (await on()).run(sql, params),
      exec: async (sql) => (await on()).exec(sql),
      transaction: async (fn) => (await on()).transaction(fn),
      copyTransaction: async (fn) => (await on()).copyTransaction(fn),
      asRole: async (claims, fn, request) => (await on()).asRole(claims, fn, request),
      runAsRole: async (claims, statement, request) => (await on()).runAsRole(claims, statement, request),
      listen: async (channel, onNotify) => (await on()).listen(channel, onNotify),
      warmConnections: async (claims, statement) => (await on()).warmConnections(claims, statement),
      close: () => this.close(),
    }
  }
}
