/**
 * What the owner's tools run on beside the server (ADR 113): its database, opened as the server
 * uses it (the running server's cluster, or the embedded one started for the length of a command),
 * and how the studio follows a site that stops; the log's masks for what they print; the folder of
 * the built pages the studio serves.
 */

// Its copies: `backup --to`, `backup status` and `restore --from` (issue 65).
export {
  BackupRefused,
  type BackupTarget,
  backUpTo,
  readBackupStatus,
  restoreFrom,
} from '../backup/backup-and-restore'
export { type BackupLine, readBackupLine } from '../backup/backup-health'
export { holdingsLine } from '../backup/holdings'
export { keyEmailMask, maskEmails, oneLine } from '../base/log'
export { DIST_DIR } from '../base/paths'
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
