import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { StartupError } from '../base/startup-error'
import { lockDataDir } from './data-dir-lock'
import type { Database } from './database'
import { clusterFiles } from './embedded/cluster-files'
import { type EmbeddedCluster, runningClusterUrl, startEmbeddedCluster } from './embedded/embedded-cluster'
import { isInitialized } from './embedded/init-cluster'
import { migrate } from './migrate'
import { openPostgres } from './postgres-driver'

export interface OpenedDatabase {
  db: Database
  applied: string[]
  /** Closes the connections, stops the embedded cluster if this process started it, releases DATA_DIR. */
  close(): Promise<void>
}

export interface OpenOptions {
  databaseUrl?: string
  dataDir: string
  /** Who holds DATA_DIR, for the message a second owner gets. */
  purpose?: string
  /** Use the cluster a running server started, if there is one (the CLI beside the site). */
  besideServer?: boolean
  log?: (message: string) => void
  /** The embedded cluster stopped on its own and could not be started again. */
  onClusterLost?: (error: Error) => void
  /** False: leave the schema as it is (a dry run writes nothing); pending migrations are applied by default. */
  migrate?: boolean
}

function migrated(db: Database, options: OpenOptions): Promise<string[]> {
  return options.migrate === false ? Promise.resolve([]) : migrate(db)
}

function refuseOldPglite(dataDir: string) {
  const files = clusterFiles(dataDir)
  if (!existsSync(files.oldPglite) || isInitialized(files.cluster)) return
  throw new StartupError(
    `${files.oldPglite} holds a waitlist in the previous embedded format (PGlite), which this version no longer runs. ` +
      'To carry its rows over, export them with the version that wrote it, then import them here:\n' +
      '  git worktree add ../lab-site-pglite 79bd246 && cd ../lab-site-pglite && npm install\n' +
      `  DATA_DIR=${files.root} npm run waitlist -- export --out waitlist.csv && cd -\n` +
      `  mv ${files.oldPglite} ${files.oldPglite}.old && npm run waitlist -- import ../lab-site-pglite/waitlist.csv\n` +
      `Or, to start with an empty list, move ${files.oldPglite} aside.`,
  )
}

/**
 * Restarts a postmaster that died under the running server (kill -9, the OOM killer). PostgreSQL
 * recovers from its WAL on start, on the same port and socket, where the pool reconnects. If that fails, the caller
 * hears of it and exits loudly, for its supervisor.
 */
function supervise(
  start: (restartOf?: EmbeddedCluster) => Promise<EmbeddedCluster>,
  first: EmbeddedCluster,
  options: OpenOptions,
) {
  let current = first
  let stopping = false
  const restarts: number[] = []
  const watch = (cluster: EmbeddedCluster) =>
    cluster.exited.then(async ({ code, signal }) => {
      if (stopping) return
      options.log?.(
        `PostgreSQL (pid ${cluster.pid}) stopped unexpectedly (${signal ?? `exit code ${code}`}); starting it again.`,
      )
      const now = Date.now()
      restarts.splice(0, restarts.length, ...restarts.filter((at) => now - at < 60_000), now)
      try {
        if (restarts.length > 3) throw new Error('it stopped 4 times within a minute')
        // The dead postmaster's backends notice within moments and exit; until they have, their
        // shared memory is still attached and a new postmaster would refuse to start.
        await sleep(1000)
        if (stopping) return
        current = await start(cluster)
        // The server began to stop while this one started: it is this code's to stop.
        if (stopping) return await current.stop()
        options.log?.(`PostgreSQL is back (pid ${current.pid}).`)
        watch(current)
      } catch (error) {
        options.onClusterLost?.(
          new Error(`The embedded PostgreSQL could not be restarted: ${(error as Error).message}`),
        )
      }
    })
  watch(first)
  return async () => {
    stopping = true
    await current.stop()
  }
}

async function openEmbedded(options: OpenOptions): Promise<OpenedDatabase> {
  const { dataDir } = options
  if (options.besideServer) {
    const url = await runningClusterUrl(dataDir)
    if (url) {
      const db = await openPostgres(url, 2)
      return { db, applied: await migrated(db, options), close: () => db.close() }
    }
  }
  const unlock = await lockDataDir(dataDir, options.purpose)
  let stopCluster: (() => Promise<void>) | undefined
  try {
    refuseOldPglite(dataDir)
    const start = (restartOf?: EmbeddedCluster) =>
      startEmbeddedCluster(dataDir, options.log ?? (() => {}), { restartOf })
    const cluster = await start()
    stopCluster = supervise(start, cluster, options)
    const db = await openPostgres(cluster.url)
    const applied = await migrated(db, options)
    return {
      db,
      applied,
      async close() {
        try {
          await db.close()
          await stopCluster?.()
        } finally {
          await unlock()
        }
      },
    }
  } catch (error) {
    await stopCluster?.().catch(() => {})
    await unlock()
    throw error
  }
}

/** DATABASE_URL when set, else the embedded PostgreSQL cluster under DATA_DIR; migrated either way. */
export async function openDatabase(options: OpenOptions): Promise<OpenedDatabase> {
  if (!options.databaseUrl) return openEmbedded(options)
  const db = await openPostgres(options.databaseUrl)
  return { db, applied: await migrated(db, options), close: () => db.close() }
}
