import { type PostgresCluster, runningPostgres, startPostgres } from './postgres-cluster'

/**
 * Set by the Vitest global setup: the folders of the clusters it started, one per worker slot,
 * as a JSON array (slot 1 first). Test files then create their databases in their slot's cluster
 * instead of starting one each. Unset elsewhere (Playwright, scripts): each process starts its own.
 */
const SLOT_CLUSTERS = 'LAB_SITE_TEST_SLOT_CLUSTERS'

/**
 * One DATABASE_URL cluster per Vitest worker slot, for the whole run. A slot runs one test file at
 * a time, so no two files ever share a cluster at once: migrations run on empty databases, and
 * the roles they create across the cluster, never race.
 */
export async function startSlotClusters(slots: number): Promise<{ stop(): Promise<void> }> {
  // At once: each is a copy and a start that mostly waits on fsync (seconds on a busy machine).
  const clusters: PostgresCluster[] = await Promise.all(Array.from({ length: slots }, () => startPostgres()))
  process.env[SLOT_CLUSTERS] = JSON.stringify(clusters.map((cluster) => cluster.dir))
  return {
    async stop() {
      delete process.env[SLOT_CLUSTERS]
      await Promise.all(clusters.map((cluster) => cluster.stop()))
    },
  }
}

/** This worker slot's cluster, when the Vitest global setup started one; it outlives the test file. */
export async function slotCluster(): Promise<PostgresCluster | undefined> {
  const dirs = JSON.parse(process.env[SLOT_CLUSTERS] ?? '[]') as string[]
  const dir = dirs[Number(process.env.VITEST_POOL_ID) - 1]
  if (!dir) return undefined
  const cluster = await runningPostgres(dir)
  if (!cluster) throw new Error(`The test run's PostgreSQL cluster in ${dir} is not running`)
  return cluster
}
