import { buildIfStale } from './build-if-stale'
import { runServer } from './run-server'

/**
 * `npm start` (through build/start.mjs's bundle) and the container image: the built site and the
 * studio's page (the team studio at /studio serves it), built first when stale.
 */
runServer(() => {
  const siteBuilt = process.env.SKIP_BUILD ? undefined : buildIfStale((message) => console.log(message))
  // Awaited by startServer; until then a failure must not count as unhandled.
  siteBuilt?.catch(() => {})
  return { siteBuilt }
})
