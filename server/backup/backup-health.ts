import { type BackupTarget, readBackupStatus } from './backup-and-restore'
import type { BackupStatus } from './continuous-backup'
import { storeWhere } from './open-store'

/**
 * The backup's one line, as the studio's header shows it (and `backup status` prints it): when
 * the last piece reached the store, or why there is reason to worry. `warning` is what a member
 * should act on: no store set, nothing there yet, a failing upload, or a server that has not
 * looked at the spool for a while (stopped, or stuck). A quiet list is not a warning: PostgreSQL
 * ends a segment only after a write, so the last piece may be old while the server's checks
 * (`checkedAt`, every few seconds) say the store holds everything.
 */
export interface BackupLine {
  level: 'ok' | 'warning' | 'elsewhere'
  line: string
  store?: string
  lastPieceAt?: string
  checkedAt?: string
  failingSince?: string
}

/** A server checks every 5 s; three minutes without a check is a server that is not checking. */
export const STALE_CHECK_MS = 3 * 60_000

/** An age in the largest whole unit a person reads at a glance: 40 s, 12 min, 3 h, 2 days. */
export function ageOf(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7_200) return `${Math.floor(seconds / 60)} min`
  if (seconds < 172_800) return `${Math.floor(seconds / 3_600)} h`
  return `${Math.floor(seconds / 86_400)} days`
}

/** The line for what the running server last wrote (backup-status.json) under these settings. */
export function backupLineOf(env: BackupTarget, status: BackupStatus | undefined, now: Date): BackupLine {
  if (env.DATABASE_URL)
    return {
      level: 'elsewhere',
      line: "Backups are your database provider's (DATABASE_URL): its point-in-time recovery.",
    }
  if (!env.BACKUP_URL)
    return {
      level: 'warning',
      line: 'No continuous backup: BACKUP_URL is not set, so a lost disk loses the list (docs/deploy.md).',
    }
  const store = storeWhere(env.BACKUP_URL)
  // A status of another store (BACKUP_URL changed since) says nothing of this one.
  const own = status?.store === store ? status : undefined
  const since = (at: string) => ageOf(now.getTime() - Date.parse(at))
  const facts = { store, lastPieceAt: own?.lastPieceAt, checkedAt: own?.checkedAt }
  if (own?.failing && own.failingSince)
    return {
      ...facts,
      level: 'warning',
      failingSince: own.failingSince,
      line:
        `Backup failing for ${since(own.failingSince)}: nothing new reaches ${store} (${own.failing}). ` +
        'Signups go on; the WAL waits on this machine.',
    }
  if (!own?.lastPieceAt)
    return { ...facts, level: 'warning', line: `Nothing has reached ${store} yet: is the server running?` }
  const last = `Backed up ${since(own.lastPieceAt)} ago to ${store}`
  if (!own.checkedAt || now.getTime() - Date.parse(own.checkedAt) > STALE_CHECK_MS)
    return {
      ...facts,
      level: 'warning',
      line: `${last}, and no server has checked for ${own.checkedAt ? since(own.checkedAt) : 'a while'}: is it running?`,
    }
  // archive_timeout ends a segment within 60 s of a write: older than that, nothing was written.
  const quiet = now.getTime() - Date.parse(own.lastPieceAt) > 2 * 60_000
  return { ...facts, level: 'ok', line: quiet ? `${last}; nothing new to copy since.` : `${last}.` }
}

/** The line now, read from DATA_DIR's backup-status.json. */
export async function readBackupLine(env: BackupTarget, now = new Date()): Promise<BackupLine> {
  return backupLineOf(env, env.DATABASE_URL ? undefined : await readBackupStatus(env), now)
}
