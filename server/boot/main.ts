import { buildIfStale } from './build-if-stale'
import { runServer } from './run-server'

/**
 * `npm start` (through build/start.mjs's bundle) and the container image: the built site, built first
 * when stale. Not the studio's page, which `npm run waitlist -- studio` builds when it needs it.
 */
runServer(() => {
  const siteBuilt = process.env.SKIP_BUILD
    ? undefined
    : buildIfStale((message) => console.log(message), { studio: false })
  // Awaited by startServer; until then a failure must not count as unhandled.
  siteBuilt?.catch(() => {})
  return { siteBuilt }
})
