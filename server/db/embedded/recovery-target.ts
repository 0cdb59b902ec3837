import { appendFile, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createFileDurably } from '../durable-file'

/**
 * Point-in-time recovery of a laid-out base backup (`restore --at TIME`): PostgreSQL's archive
 * recovery (recovery.signal) replays the WAL to `recovery_target_time`, then promotes the cluster
 * to a new timeline, so WAL written after the restore never takes the names of the segments
 * archived before it. The WAL restored from the store is already in pg_wal, decrypted by the
 * restore (BACKUP_KEY never reaches PostgreSQL's environment), so `restore_command` finds nothing
 * more: PostgreSQL requires one for archive recovery, and reads pg_wal when it fails.
 * hot_standby off keeps every connection out until the promotion: the restore's next step writes.
 */

const BEGIN = '# waitlist restore --at: these lines go once the restore is done'
const END = '# waitlist restore --at: end'

/** Settings quoted for postgresql.conf: single quotes doubled. */
const setting = (name: string, value: string) => `${name} = '${value.replaceAll("'", "''")}'`

/** Asks the cluster in `clusterDir`'s next start to recover to `at` (an ISO 8601 moment), then promote. */
export async function writeRecoveryTarget(clusterDir: string, at: string): Promise<void> {
  const lines = [
    BEGIN,
    setting('restore_command', 'false'),
    // PostgreSQL's own spelling: it refuses ISO 8601's T and Z here.
    setting('recovery_target_time', new Date(at).toISOString().replace('T', ' ').replace('Z', '+00')),
    setting('recovery_target_action', 'promote'),
    setting('recovery_target_timeline', 'current'),
    setting('hot_standby', 'off'),
    END,
  ]
  await appendFile(join(clusterDir, 'postgresql.auto.conf'), `\n${lines.join('\n')}\n`, { mode: 0o600 })
  await createFileDurably(join(clusterDir, 'recovery.signal'), '', { mode: 0o600, flag: 'w' })
}

/** Once recovered and stopped: the cluster's own settings again (a later start is an ordinary one). */
export async function clearRecoveryTarget(clusterDir: string): Promise<void> {
  const file = join(clusterDir, 'postgresql.auto.conf')
  const text = await readFile(file, 'utf8').catch(() => undefined)
  if (text === undefined || !text.includes(BEGIN)) return
  const start = text.indexOf(`\n${BEGIN}`)
  const end = text.indexOf(END) + END.length + 1
  await writeFile(file, text.slice(0, start === -1 ? text.indexOf(BEGIN) : start) + text.slice(end))
  await rm(join(clusterDir, 'recovery.signal'), { force: true })
}

/** PostgreSQL's words when the WAL ends before the target: the time is after the newest WAL. */
export const isTargetPastWal = (error: unknown) =>
  /recovery ended before configured recovery target was reached/.test(String((error as Error)?.message))
