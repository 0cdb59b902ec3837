/**
 * The owner's tools' database (ADR 113): the one the server uses, opened beside it (the running
 * server's cluster, or the embedded one started for the length of a command), and how the studio
 * follows a site that stops. The COPY text and dates the queries write are the entries' own door's.
 */
export {
  embeddedClusterExists,
  runningServerDatabaseUrl,
  runningServerTcpUrl,
  ServerFollower,
  SITE_STOPPED,
  SiteStoppedError,
} from '../db/beside-server'
export type { CopyTransaction, Database } from '../db/database'
export { openDatabase } from '../db/open-database'
