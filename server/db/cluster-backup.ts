import { existsSync } from 'node:fs'
import { chown, mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CopyTransaction, Database } from './database'
import { type BackupManifest, layOutBaseBackup, takeBaseBackup } from './embedded/base-backup'
import { clusterAccount } from './embedded/cluster-account'
import { clusterFiles } from './embedded/cluster-files'
import { clearRecoveryTarget } from './embedded/recovery-target'

/**
 * The door of server/db to the embedded cluster's backups (with open-database.ts and
 * beside-server.ts): the backup room (server/backup) copies, lays out and spools through it, and
 * knows nothing of the cluster's files.
 */
export { type BackupManifest, backupFiles, readBackupManifest } from './embedded/base-backup'

/** A copy of the cluster under `dataDir` into `dir`, through a connection held for the whole backup. */
export function backUpCluster(options: {
  db: Database
  dataDir: string
  dir: string
  holds(tx: CopyTransaction): Promise<Record<string, number>>
  progress(line: string): void
}): Promise<BackupManifest> {
  const files = clusterFiles(options.dataDir)
  return options.db.copyTransaction((tx) =>
    takeBaseBackup({ ...options, tx, clusterDir: files.cluster, secrets: [files.password, files.jwtSecret] }),
  )
}

/**
 * Lays a backup out as the cluster of an empty `dataDir`; its first start replays the WAL, to its
 * end, or to `at` (ISO 8601) and then promotes (`restore --at`).
 */
export function layOutCluster(dir: string, dataDir: string, at?: string): Promise<void> {
  const files = clusterFiles(dataDir)
  return layOutBaseBackup({
    dir,
    clusterDir: files.cluster,
    dataDir: files.root,
    account: clusterAccount(),
    recoveryTarget: at,
  })
}

/** After `restore --at`'s recovery: the cluster's own settings again, for every later start. */
export const finishRecovery = (dataDir: string) => clearRecoveryTarget(clusterFiles(dataDir).cluster)

/** A recovery that could not reach its target leaves no cluster: the restore may be tried again. */
export const removeCluster = (dataDir: string) =>
  rm(clusterFiles(dataDir).cluster, { recursive: true, force: true })

export { isTargetPastWal } from './embedded/recovery-target'

/** In a spool just made: no base is current for the WAL it will hold. */
export const SPOOL_NEW = '.new'

/** Where PostgreSQL's archive_command leaves finished WAL segments while continuous backup is on. */
export const walSpool = (dataDir: string) => clusterFiles(dataDir).spool

/**
 * Continuous backup on: the spool exists (before the cluster starts, so archive_timeout applies),
 * given to the cluster's account. Off: it goes, with what it held, so nothing piles up there.
 */
export async function setWalSpool(dataDir: string, on: boolean): Promise<void> {
  const spool = walSpool(dataDir)
  // A DATA_DIR that cannot hold the spool is the database's to name (open-database.ts), not this.
  if (!on) return rm(spool, { recursive: true, force: true }).catch(() => {})
  if (existsSync(spool)) return
  await mkdir(spool, { recursive: true, mode: 0o700 })
  // Archiving was off until now: the WAL kept off the machine has a gap, so the next base must be
  // taken at once, or a restore would stop at the gap (server/backup/continuous-backup.ts).
  await writeFile(join(spool, SPOOL_NEW), '')
  const account = clusterAccount()
  if (account) await chown(spool, account.uid, account.gid)
}
