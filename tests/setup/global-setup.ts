import type { TestProject } from 'vitest/node'
import { prepareTemplate } from '../../harness/data-dir'
import { memoryScratch } from '../../harness/memory-scratch'
import { bundleForTests } from '../../harness/test-bundle'
import { startSlotClusters } from '../../harness/worker-cluster'
import { buildIfStale } from '../../server/boot/build-if-stale'

/**
 * Once, before any worker starts: build the site when stale (test servers serve dist, and two
 * workers building it at once would trip over each other), bundle the server and the CLI that the
 * tests start (harness/test-bundle.ts), migrate one embedded cluster template for every worker
 * to copy (see harness/data-dir.ts), and start one DATABASE_URL cluster per worker slot, which
 * the test files share (harness/worker-cluster.ts).
 */
export default async function setup(project: TestProject) {
  // npm test's clusters in memory; test:slow's, which judge durability, on the disk.
  const projects = project.vitest.projects.map((each) => each.name)
  const scratch = projects.includes('slow') ? { remove: async () => {} } : await memoryScratch()
  await buildIfStale((message) => console.log(message))
  await bundleForTests()
  await prepareTemplate()
  const clusters = await startSlotClusters(project.vitest.config.maxWorkers)
  return async () => {
    await clusters.stop()
    await scratch.remove()
  }
}
