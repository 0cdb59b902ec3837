import { buildIfStale } from '../../server/boot/build-if-stale'
import { prepareTemplate } from '../support/data-dir'

/**
 * Once, before any worker starts: build the site when stale (test servers serve dist, and two
 * workers building it at once would trip over each other), and migrate one embedded cluster template for
 * every worker to copy (see tests/support/data-dir.ts).
 */
export default async function setup() {
  await buildIfStale((message) => console.log(message))
  await prepareTemplate()
}
