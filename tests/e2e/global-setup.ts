import { prepareTemplate } from '../../harness/data-dir'
import { memoryScratch } from '../../harness/memory-scratch'
import { bundleForTests } from '../../harness/test-bundle'
import { buildIfStale } from '../../server/boot/build-if-stale'

/** The browser tests run the built site, so build it when stale; bundle the server and CLI, and warm the database template. */
export default async function globalSetup() {
  // The workers, started after this, inherit it: their servers' clusters go to memory too.
  Object.assign(process.env, memoryScratch())
  await buildIfStale((message) => console.log(message))
  await bundleForTests()
  await prepareTemplate()
}
