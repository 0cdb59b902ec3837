import { existsSync, readdirSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { embeddedClusterExists } from '../db/beside-server'
import { type BackupManifest, backUpCluster, layOutCluster, readBackupManifest } from '../db/cluster-backup'
import { lockDataDir } from '../db/data-dir-lock'
import { openDatabase } from '../db/open-database'
import { type BackupStatus, backupStatusFile } from './continuous-backup'
import { reapplyErasures } from './erasure-ledger'
import { countHoldings } from './holdings'
import { isStoreUrl, openBackupStore } from './open-store'
import { fetchLatest, latestLedger } from './restore-from-store'

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

/**
 * `restore --from DIR|URL`: rebuilds an empty DATA_DIR from a backup directory, or from the
 * continuous backup's store to the last segment that reached it, then re-applies every erasure of
 * the store's ledger that the restored list does not hold (when the store is known: BACKUP_URL, or
 * the URL given). A DATA_DIR that holds a list is refused untouched.
 */
export async function restoreFrom(
  env: BackupTarget,
  from: string,
  progress: (line: string) => void,
): Promise<Restored> {
  if (env.DATABASE_URL) throw new BackupRefused(DATABASE_URL_SET)
  const root = resolve(env.DATA_DIR)
  const used = () =>
    new BackupRefused(
      `${root} already holds a list: restore only fills an empty DATA_DIR, and changed nothing. ` +
        'Point DATA_DIR at a new directory, or move this one aside first.',
    )
  // Asked before the lock too: a running server holds the lock of a DATA_DIR that has a list.
  if (embeddedClusterExists(env.DATA_DIR)) throw used()
  const fromStore = isStoreUrl(from) ? await openBackupStore(from) : undefined
  const ledgerStore = fromStore ?? (env.BACKUP_URL ? await openBackupStore(env.BACKUP_URL) : undefined)
  if (ledgerStore && !env.BACKUP_KEY)
    throw new BackupRefused(
      `Restoring from ${ledgerStore.where} needs BACKUP_KEY, the key it was encrypted with.`,
    )
  const key = env.BACKUP_KEY ?? Buffer.alloc(0)
  const work = join(root, 'restore-work')
  let asOf: string
  let segments: number | undefined
  const unlock = await lockDataDir(env.DATA_DIR, 'waitlist restore')
  try {
    if (embeddedClusterExists(env.DATA_DIR)) throw used()
    let dir = resolve(from)
    if (fromStore) {
      const fetched = await fetchLatest(fromStore, key, work, progress)
      dir = work
      asOf = `the last segment archived (${fetched.lastSegment}), after the base of ${fetched.manifest.endedAt}`
      segments = fetched.segments
    } else asOf = (await readBackupManifest(dir)).endedAt
    progress(`Laying out the backup in ${root}…`)
    await layOutCluster(dir, env.DATA_DIR)
  } finally {
    await rm(work, { recursive: true, force: true })
    await unlock()
  }
  progress('Starting PostgreSQL to replay the WAL…')
  const database = await openDatabase({ dataDir: env.DATA_DIR, purpose: 'waitlist restore', migrate: false })
  try {
    const ledger = ledgerStore && (await latestLedger(ledgerStore, key))
    const reapplied = ledger ? await reapplyErasures(database.db, ledger) : undefined
    return { asOf, holds: await countHoldings(database.db), reapplied, segments }
  } finally {
    await database.close()
  }
}

/** `backup status`: what the running server last wrote of its continuous backup. */
export async function readBackupStatus(env: BackupTarget): Promise<BackupStatus | undefined> {
  const text = await readFile(backupStatusFile(env.DATA_DIR), 'utf8').catch(() => undefined)
  return text ? (JSON.parse(text) as BackupStatus) : undefined
}
