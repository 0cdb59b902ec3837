import { buildIfStale } from '../../server/boot/build-if-stale'
import { prepareTemplate } from '../support/data-dir'

/** The browser tests run the built site, so build it when stale, and warm the database template. */
export default async function globalSetup() {
  await buildIfStale((message) => console.log(message))
  await prepareTemplate()
}
