import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createGzip } from 'node:zlib'
import type { Logger } from '../base/log'
import { startSweep } from '../base/periodic-sweep'
import { backUpCluster, SPOOL_NEW, walSpool } from '../db/cluster-backup'
import type { Database } from '../db/database'
import type { BackupStore } from './backup-store'
import { ledgerDigest, readLedger } from './erasure-ledger'
import { countHoldings } from './holdings'
import { openSealed, seal, sealFile, sealStream } from './sealed-piece'

/**
 * Continuous backup of the embedded cluster (BACKUP_URL): PostgreSQL's archive_command hands each
 * finished WAL segment to DATA_DIR/backup-spool (server/db/embedded/wal-archiving.ts, at most
 * archive_timeout after a commit), and this sweep, every few seconds, seals each (gzip, AES-256-GCM
 * under BACKUP_KEY) and puts it in the store, then a base backup once a day, the erased list when it
 * changed, and prunes what the retention no longer needs. A failure is logged loudly and tried again;
 * it never stops a signup (the spool only grows meanwhile).
 */
export interface ContinuousBackupOptions {
  db: Database
  dataDir: string
  store: BackupStore
  key: Buffer
  retentionDays: number
  log: Logger
  everyMs?: number
  /** What the last start wrote of its backup (backup-status.json), kept until this one does better. */
  previous?: BackupStatus
}

const DAY_MS = 86_400_000
/** Names of bases and ledgers: their moment, sortable as text. */
const stamp = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
const WAL_SEGMENT = /^[0-9A-F]{24}$/

/** What `backup status`, the start-up line and the studio read: written after every pass. */
export interface BackupStatus {
  store: string
  lastPieceAt?: string
  lastBaseAt?: string
  /** When a pass last found the store holding everything the spool had: the server is at work. */
  checkedAt?: string
  failing?: string
  failingSince?: string
}

export const backupStatusFile = (dataDir: string) => join(dataDir, 'backup-status.json')

/** The spool's finished segments to the store, oldest first, each removed once it is there. */
async function uploadSpool(options: ContinuousBackupOptions): Promise<number> {
  const spool = walSpool(options.dataDir)
  // Finished segments (and timeline histories) only: not a copy under way, nor the spool's own marker.
  const names = (await readdir(spool).catch(() => [] as string[]))
    .filter((name) => WAL_SEGMENT.test(name) || name.endsWith('.history'))
    .sort()
  for (const name of names) {
    const piece = `wal/${name}`
    await options.store.putStream(piece, sealFile(join(spool, name), options.key, piece))
    await unlink(join(spool, name))
  }
  return names.length
}

/** A base backup, taken beside the cluster, then tarred, sealed and streamed to the store. */
async function uploadBase(options: ContinuousBackupOptions): Promise<string> {
  const work = join(options.dataDir, 'backup-work')
  await rm(work, { recursive: true, force: true })
  const dir = join(work, 'base')
  const manifest = await backUpCluster({
    db: options.db,
    dataDir: options.dataDir,
    dir,
    holds: countHoldings,
    progress: () => {},
  })
  const name = `base/${stamp(new Date(manifest.endedAt))}`
  try {
    const tar = spawn('tar', ['-C', dir, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const failed = new Promise<never>((_, reject) =>
      tar.once('exit', (code) => code !== 0 && reject(new Error(`tar exited ${code}`))),
    )
    await Promise.race([
      options.store.putStream(
        `${name}.tar`,
        tar.stdout.pipe(createGzip()).pipe(sealStream(options.key, `${name}.tar`)),
      ),
      failed,
    ])
    const json = Buffer.from(JSON.stringify(manifest))
    await options.store.put(`${name}.json`, await seal(json, options.key, `${name}.json`))
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  return manifest.endedAt
}

/** The newest base's stamp in the store, if it holds one. */
async function latestBase(store: BackupStore): Promise<string | undefined> {
  const bases = (await store.list('base')).filter((name) => name.endsWith('.json'))
  return bases.at(-1)?.slice(5, -5)
}

/** Bases past the retention go (never the latest), then the WAL and ledgers older than the oldest base kept. */
async function prune(options: ContinuousBackupOptions): Promise<void> {
  const bases = (await options.store.list('base')).filter((name) => name.endsWith('.json'))
  const cutoff = stamp(new Date(Date.now() - options.retentionDays * DAY_MS))
  const kept = bases.filter((name, index) => index === bases.length - 1 || name.slice(5) >= cutoff)
  for (const name of bases.filter((name) => !kept.includes(name))) {
    await options.store.remove(name)
    await options.store.remove(name.replace(/\.json$/, '.tar'))
  }
  const oldest = kept[0]
  if (!oldest) return
  const oldestStamp = oldest.slice(5, -5)
  const ledgers = await options.store.list('erasures')
  for (const name of ledgers.slice(0, -1)) if (name.slice(9) < oldestStamp) await options.store.remove(name)
  // WAL before the oldest base's own start: read from its manifest.
  const body = await options.store.get(oldest)
  if (!body) return
  const { startWal } = JSON.parse(openSealed(body, options.key, oldest).toString()) as { startWal?: string }
  if (!startWal) return
  for (const name of await options.store.list('wal'))
    if (WAL_SEGMENT.test(name.slice(4)) && name.slice(4) < startWal) await options.store.remove(name)
}

export function startContinuousBackup(options: ContinuousBackupOptions) {
  const { lastPieceAt, lastBaseAt } = options.previous ?? {}
  const status: BackupStatus = { store: options.store.where, lastPieceAt, lastBaseAt }
  let ledgerUploaded = ''
  // The latest base's stamp, read from the store once, then known: a base is this server's to take.
  let latest: string | null | undefined
  const save = () =>
    writeFile(backupStatusFile(options.dataDir), `${JSON.stringify(status)}\n`, { mode: 0o600 })
  const pass = async (): Promise<number> => {
    try {
      let pieces = await uploadSpool(options)
      if (latest === undefined) latest = (await latestBase(options.store)) ?? null
      const fresh = existsSync(join(walSpool(options.dataDir), SPOOL_NEW))
      if (fresh || !latest || latest < stamp(new Date(Date.now() - DAY_MS))) {
        status.lastBaseAt = await uploadBase(options)
        latest = stamp(new Date(status.lastBaseAt))
        options.log.info(`Backup: a base backup as of ${status.lastBaseAt} reached ${options.store.where}.`)
        await rm(join(walSpool(options.dataDir), SPOOL_NEW), { force: true })
        pieces += 1 + (await uploadSpool(options))
        // Only a new base changes which pieces the retention keeps: pruned then, once a day.
        await prune(options)
      }
      const ledger = await readLedger(options.db)
      const digest = ledgerDigest(ledger)
      if (digest !== ledgerUploaded) {
        const name = `erasures/${stamp(new Date(ledger.at))}-${digest.slice(0, 8)}.json`
        await options.store.put(name, await seal(Buffer.from(JSON.stringify(ledger)), options.key, name))
        ledgerUploaded = digest
        pieces++
      }
      status.checkedAt = new Date().toISOString()
      if (pieces > 0) status.lastPieceAt = status.checkedAt
      if (status.failing) options.log.info(`Backup to ${options.store.where} works again.`)
      status.failing = undefined
      status.failingSince = undefined
      return 0
    } catch (error) {
      if (!status.failing) status.failingSince = new Date().toISOString()
      status.failing = (error as Error).message
      throw error
    } finally {
      await save().catch(() => {})
    }
  }
  return startSweep(options.log, options.everyMs ?? 5_000, {
    run: pass,
    said: () => '', // run() logs what matters itself, and returns 0
    failed: `BACKUP FAILING: nothing new reached ${options.store.where}; signups go on, and the WAL waits in the spool. Retrying`,
  })
}

/** Whether the server keeps a continuous backup: BACKUP_URL and its key, on the embedded cluster. */
const backsUp = (env: { DATABASE_URL?: string; BACKUP_URL?: string; BACKUP_KEY?: Buffer }) =>
  !env.DATABASE_URL && env.BACKUP_URL !== undefined && env.BACKUP_KEY !== undefined

/**
 * How many days the store may keep an entry after it is erased (the person's page says so): the
 * retention, and a day more, since the store is pruned when the next day's base is taken.
 */
export const backupKeepsDays = (env: Parameters<typeof backsUp>[0] & { BACKUP_RETENTION_DAYS: number }) =>
  backsUp(env) ? env.BACKUP_RETENTION_DAYS + 1 : undefined

/** The server's part (server/boot): continuous backup when BACKUP_URL is set on the embedded cluster. */
export async function startBackupIfSet(
  env: {
    DATABASE_URL?: string
    DATA_DIR: string
    BACKUP_URL?: string
    BACKUP_KEY?: Buffer
    BACKUP_RETENTION_DAYS: number
  },
  db: Database,
  log: Logger,
): Promise<{ stop(): Promise<void> } | undefined> {
  if (!backsUp(env) || !env.BACKUP_URL || !env.BACKUP_KEY) return undefined
  const { openBackupStore } = await import('./open-store')
  const store = await openBackupStore(env.BACKUP_URL)
  // What the last start wrote, if it was of this store (BACKUP_URL may have changed since).
  const previous = await readFile(backupStatusFile(env.DATA_DIR), 'utf8').then(
    (text) => JSON.parse(text) as BackupStatus,
    () => undefined,
  )
  if (previous && previous.store !== store.where) previous.lastPieceAt = previous.lastBaseAt = undefined
  const last = previous?.lastPieceAt
  log.info(
    `Continuous backup to ${store.where}: ${last ? `the last piece reached it at ${last}` : 'nothing has reached it yet'}; ` +
      'a base each day, the WAL within 60 s of a commit.',
  )
  return startContinuousBackup({
    db,
    dataDir: env.DATA_DIR,
    store,
    key: env.BACKUP_KEY,
    retentionDays: env.BACKUP_RETENTION_DAYS,
    log,
    previous,
  })
}
