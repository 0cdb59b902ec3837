import { existsSync, readdirSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { embeddedClusterExists } from '../db/beside-server'
import {
  type BackupManifest,
  backUpCluster,
  finishRecovery,
  isTargetPastWal,
  layOutCluster,
  readBackupManifest,
  removeCluster,
} from '../db/cluster-backup'
import { lockDataDir } from '../db/data-dir-lock'
import { openDatabase } from '../db/open-database'
import type { BackupStore } from './backup-store'
import { type BackupStatus, backupStatusFile } from './continuous-backup'
import { reapplyErasures } from './erasure-ledger'
import { countHoldings } from './holdings'
import { isStoreUrl, openBackupStore } from './open-store'
import { BeforeOldestBase, fetchBase, latestLedger } from './restore-from-store'

/** The settings backup and restore read (the server's env's part). */
export interface BackupTarget {
  DATABASE_URL?: string
  DATA_DIR: string
  BACKUP_URL?: string
  BACKUP_KEY?: Buffer
}

/** A refusal the owner can act on: said as it is, exit 2, nothing changed. */
export class BackupRefused extends Error {
  override name = 'BackupRefused'
}

const DATABASE_URL_SET =
  'With DATABASE_URL the database is your provider’s: use its backups (point-in-time recovery), and ' +
  '`npm run waitlist -- export` to move the list itself. `backup` and `restore` copy the embedded cluster under DATA_DIR.'

/** `backup --to DIR`: a copy of the embedded cluster, taken while the site runs (the server's cluster, or one this starts). */
export async function backUpTo(
  env: BackupTarget,
  to: string,
  progress: (line: string) => void,
): Promise<BackupManifest & { dir: string }> {
  if (env.DATABASE_URL) throw new BackupRefused(DATABASE_URL_SET)
  const dir = resolve(to)
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new BackupRefused(
      `${dir} is not empty: a backup goes into a new or empty directory, and replaces nothing.`,
    )
  if (!embeddedClusterExists(env.DATA_DIR))
    throw new BackupRefused(`${resolve(env.DATA_DIR)} holds no list yet: nothing to back up.`)
  const database = await openDatabase({
    dataDir: env.DATA_DIR,
    purpose: 'waitlist backup',
    besideServer: true,
  })
  try {
    return {
      ...(await backUpCluster({
        db: database.db,
        dataDir: env.DATA_DIR,
        dir,
        holds: countHoldings,
        progress,
      })),
      dir,
    }
  } finally {
    await database.close()
  }
}

export interface Restored {
  asOf: string
  holds: Record<string, number>
  /** Erasures made after the copy, made again from the ledger kept beside the backup. */
  reapplied?: { hashes: number; entries: number }
  segments?: number
}

/** What `restore --at` was given: an ISO 8601 moment with its zone (Z or an offset), not in the future. */
export function restoreMoment(at: string, now = new Date()): Date {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i
  const moment = iso.test(at) ? new Date(at) : undefined
  if (!moment || Number.isNaN(moment.getTime()))
    throw new BackupRefused(
      `--at ${at} is not a moment: give it in ISO 8601 with its zone, as 2024-05-01T09:30:00Z or 2024-05-01T11:30+02:00.`,
    )
  if (moment > now)
    throw new BackupRefused(
      `--at ${at} is in the future: nothing was written then. Restore without --at for the latest.`,
    )
  return moment
}

/**
 * `restore --from DIR|URL [--at TIME]`: rebuilds an empty DATA_DIR from a backup directory, or from
 * the continuous backup's store to the last segment that reached it (or to TIME, from the latest
 * base before it), then re-applies every erasure of the store's ledger that the restored list does
 * not hold (when the store is known: BACKUP_URL, or the URL given). A DATA_DIR that holds a list is
 * refused untouched.
 */
export async function restoreFrom(
  env: BackupTarget,
  from: string,
  progress: (line: string) => void,
  at?: string,
): Promise<Restored> {
  if (env.DATABASE_URL && at) throw new BackupRefused(NO_POINT_IN_TIME)
  if (env.DATABASE_URL) throw new BackupRefused(DATABASE_URL_SET)
  if (at && !isStoreUrl(from))
    throw new BackupRefused(
      `--at needs the continuous backup's store (file:///… or s3://…): ${from} is a copy of one moment, restored as it is without --at.`,
    )
  const moment = at === undefined ? undefined : restoreMoment(at)
  // Asked before the lock too: a running server holds the lock of a DATA_DIR that has a list.
  if (embeddedClusterExists(env.DATA_DIR)) throw usedDataDir(env.DATA_DIR)
  const fromStore = isStoreUrl(from) ? await openBackupStore(from) : undefined
  const ledgerStore = fromStore ?? (env.BACKUP_URL ? await openBackupStore(env.BACKUP_URL) : undefined)
  if (ledgerStore && !env.BACKUP_KEY)
    throw new BackupRefused(
      `Restoring from ${ledgerStore.where} needs BACKUP_KEY, the key it was encrypted with.`,
    )
  const key = env.BACKUP_KEY ?? Buffer.alloc(0)
  const laid = await layOut(env.DATA_DIR, from, fromStore, key, progress, moment)
  progress(
    moment ? `Starting PostgreSQL to replay the WAL to ${at}…` : 'Starting PostgreSQL to replay the WAL…',
  )
  const database = await openRestored(env.DATA_DIR, laid, at)
  try {
    const ledger = ledgerStore && (await latestLedger(ledgerStore, key))
    const reapplied = ledger ? await reapplyErasures(database.db, ledger) : undefined
    return { ...laid, holds: await countHoldings(database.db), reapplied }
  } finally {
    await database.close()
    if (moment) await finishRecovery(env.DATA_DIR)
  }
}

const NO_POINT_IN_TIME =
  '--at is not available with DATABASE_URL: a copy there is logical, of one moment, with no WAL to replay. ' +
  'Your provider’s point-in-time recovery restores to a time.'

const usedDataDir = (dataDir: string) =>
  new BackupRefused(
    `${resolve(dataDir)} already holds a list: restore only fills an empty DATA_DIR, and changed nothing. ` +
      'Point DATA_DIR at a new directory, or move this one aside first.',
  )

/** Under DATA_DIR's lock: the backup (a directory, or fetched from the store) laid out as its cluster. */
async function layOut(
  dataDir: string,
  from: string,
  fromStore: BackupStore | undefined,
  key: Buffer,
  progress: (line: string) => void,
  moment: Date | undefined,
): Promise<Omit<Restored, 'holds'>> {
  const root = resolve(dataDir)
  const work = join(root, 'restore-work')
  const unlock = await lockDataDir(dataDir, 'waitlist restore')
  try {
    if (embeddedClusterExists(dataDir)) throw usedDataDir(dataDir)
    if (!fromStore) {
      const { endedAt } = await readBackupManifest(resolve(from))
      progress(`Laying out the backup in ${root}…`)
      await layOutCluster(resolve(from), dataDir)
      return { asOf: endedAt }
    }
    const fetched = await fetchBase(fromStore, key, work, progress, moment).catch((error: unknown) => {
      if (!(error instanceof BeforeOldestBase)) throw error
      throw new BackupRefused(
        `--at ${moment?.toISOString()} is before the oldest base backup ${fromStore.where} keeps (${error.oldest}): ` +
          'nothing there reaches back so far (BACKUP_RETENTION_DAYS). Give a time after it.',
      )
    })
    progress(`Laying out the backup in ${root}…`)
    await layOutCluster(work, dataDir, moment?.toISOString())
    const base = `the base of ${fetched.manifest.endedAt}`
    return {
      asOf: moment
        ? `${moment.toISOString()} (the last commit by then), from ${base}`
        : `the last segment archived (${fetched.lastSegment}), after ${base}`,
      segments: fetched.segments,
    }
  } finally {
    await rm(work, { recursive: true, force: true })
    await unlock()
  }
}

/** The restored cluster started: its WAL replayed. A target past the newest WAL is refused, and no cluster is left. */
async function openRestored(dataDir: string, laid: Omit<Restored, 'holds'>, at: string | undefined) {
  try {
    return await openDatabase({ dataDir, purpose: 'waitlist restore', migrate: false })
  } catch (error) {
    if (!at || !isTargetPastWal(error)) throw error
    await removeCluster(dataDir)
    throw new BackupRefused(
      `--at ${at} is after the newest WAL in the store: its last segment ${laid.segments === undefined ? '' : `(of ${laid.segments} fetched) `}ends before then, ` +
        'and nothing was restored. Restore without --at for the latest point the store holds.',
    )
  }
}

/** `backup status`: what the running server last wrote of its continuous backup. */
export async function readBackupStatus(env: BackupTarget): Promise<BackupStatus | undefined> {
  const text = await readFile(backupStatusFile(env.DATA_DIR), 'utf8').catch(() => undefined)
  return text ? (JSON.parse(text) as BackupStatus) : undefined
}
