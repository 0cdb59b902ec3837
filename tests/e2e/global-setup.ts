import { prepareTemplate } from '../../harness/data-dir'
import { memoryScratch } from '../../harness/memory-scratch'
import { bundleForTests } from '../../harness/test-bundle'
import { buildIfStale } from '../../server/boot/build-if-stale'

/** The browser tests run the built site, so build it when stale; bundle the server and CLI, and warm the database template. */
export default async function globalSetup() {
  const scratch = await memoryScratch()
  await buildIfStale((message) => console.log(message))
  await bundleForTests()
  await prepareTemplate()
  return () => scratch.remove() // Playwright's global teardown
}
