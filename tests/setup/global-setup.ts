import { prepareTemplate } from '../support/data-dir'

/** One migrated PGlite template for every worker to copy (see tests/support/data-dir.ts). */
export default async function setup() {
  await prepareTemplate()
}
