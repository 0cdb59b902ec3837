import { existsSync } from 'node:fs'

/**
 * The cluster always runs with archive_mode on, so that turning continuous backup on or off needs
 * no other start than the next one, and whoever starts the cluster (the server, or the CLI while the
 * site is stopped) archives alike: a gap in the WAL would end every later restore there. The
 * command only hands each finished segment to the spool, synced before it answers (PostgreSQL then
 * recycles the segment), and does nothing while there is no spool; no secret reaches PostgreSQL's
 * environment: the server uploads (server/backup/continuous-backup.ts).
 */

/** A path in single quotes for /bin/sh, with %% for PostgreSQL's own placeholders. */
const quoted = (path: string) => `'${path.replaceAll("'", `'\\''`).replaceAll('%', '%%')}'`

/** archive_timeout while the spool exists: at most this long between a commit and its segment's upload. */
export const ARCHIVE_TIMEOUT_SECONDS = 60

export function archiveSettings(spool: string): Record<string, string> {
  if (process.platform === 'win32') return {}
  const dir = quoted(spool)
  const part = `${dir}/%f.partial`
  const command =
    `test ! -d ${dir} || test -f ${dir}/%f || ` +
    `(cp %p ${part} && sync ${part} && mv -f ${part} ${dir}/%f && sync ${dir})`
  return {
    archive_mode: 'on',
    archive_command: command,
    // Only while continuous backup is on: a forced switch is a new 16 MiB segment to write.
    ...(existsSync(spool) ? { archive_timeout: String(ARCHIVE_TIMEOUT_SECONDS) } : {}),
  }
}
