import type { TestProject } from 'vitest/node'
import { buildIfStale } from '../../server/boot/build-if-stale'
import { prepareTemplate } from '../support/data-dir'
import { bundleForTests } from '../support/test-bundle'
import { startSlotClusters } from '../support/worker-cluster'

/**
 * Once, before any worker starts: build the site when stale (test servers serve dist, and two
 * workers building it at once would trip over each other), bundle the server and the CLI that the
 * tests start (tests/support/test-bundle.ts), migrate one embedded cluster template for every worker
 * to copy (see tests/support/data-dir.ts), and start one DATABASE_URL cluster per worker slot, which
 * the test files share (tests/support/worker-cluster.ts).
 */
export default async function setup(project: TestProject) {
  await buildIfStale((message) => console.log(message))
  await bundleForTests()
  await prepareTemplate()
  const clusters = await startSlotClusters(project.vitest.config.maxWorkers)
  return () => clusters.stop()
}
