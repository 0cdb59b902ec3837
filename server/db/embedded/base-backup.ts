import {
  chown,
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { CopyTransaction } from '../database'
import { createFileDurably, syncDirectory } from '../durable-file'
import type { ClusterAccount } from './cluster-account'
import { writeRecoveryTarget } from './recovery-target'

/**
 * A physical copy of the embedded cluster, taken while it runs, in PostgreSQL's own format: the
 * low-level API (pg_backup_start / pg_backup_stop), since the npm binaries ship no pg_basebackup and
 * Debian's cannot read 18. The copy is the cluster's files as they were read, which may be torn,
 * plus every WAL segment from the backup's checkpoint to its end: replaying them at the first start
 * makes the files consistent as of the end (full_page_writes is always on, DURABILITY_SETTINGS).
 * A temporary replication slot, taken before the start, keeps those segments from being recycled by
 * a checkpoint during the copy; it goes with the session.
 */

/** A backup directory's parts. */
export function backupFiles(dir: string) {
  return {
    dir,
    /** The cluster's files, as PGDATA, without pg_wal's contents. */
    base: join(dir, 'base'),
    /** The WAL segments from the backup's start to its end. */
    wal: join(dir, 'wal'),
    /**
     * DATA_DIR's secrets the copy needs: the superuser's password its cluster knows, and the JWT
     * secret, which keys the API, the mail links and the erased list's hashes.
     */
    secrets: join(dir, 'secrets'),
    /** Written last: a directory without it is a copy cut short. */
    manifest: join(dir, 'backup.json'),
  }
}

/** What a backup holds, written last into backup.json. */
export interface BackupManifest {
  kind: 'embedded-base-backup'
  postgres: string
  startedAt: string
  /** When pg_backup_stop returned: the copy restores to this moment. */
  endedAt: string
  startLsn: string
  /** The first WAL segment the copy needs: older ones may be pruned. */
  startWal: string
  endLsn: string
  /** The list as counted just before pg_backup_stop: the copy holds at least this. */
  holds: Record<string, number>
  walSegments: number
  bytes: number
}

// What the documented procedure leaves out: rebuilt at start, or this server's own (PostgreSQL's
// "Making a Base Backup Using the Low Level API").
const SKIP_CONTENTS = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
])
const SKIP_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map'])
const WAL_SEGMENT = /^[0-9A-F]{24}$/

const skipped = (name: string) =>
  SKIP_FILES.has(name) || name.startsWith('pgsql_tmp') || name === 'pg_internal.init'

/** Copies a tree, synced, leaving out what the low-level API says to; files that vanish meanwhile were dropped. */
async function copyTree(from: string, to: string, top: boolean): Promise<number> {
  await mkdir(to, { recursive: true, mode: 0o700 })
  let bytes = 0
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (skipped(entry.name)) continue
    const source = join(from, entry.name)
    const target = join(to, entry.name)
    if (entry.isDirectory()) {
      if (top && SKIP_CONTENTS.has(entry.name)) await mkdir(target, { mode: 0o700 })
      else bytes += await copyTree(source, target, false)
    } else if (entry.isFile()) {
      bytes += await copySynced(source, target).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return 0
        throw error
      })
    }
  }
  await syncDirectory(to)
  return bytes
}

async function copySynced(from: string, to: string): Promise<number> {
  await copyFile(from, to)
  const file = await open(to, 'r+')
  try {
    await file.sync()
    return (await file.stat()).size
  } finally {
    await file.close()
  }
}

/** The WAL file named on backup_label's START WAL LOCATION line. */
function startSegment(label: string): string {
  const file = /START WAL LOCATION: \S+ \(file ([0-9A-F]{24})\)/.exec(label)?.[1]
  if (!file) throw new Error(`pg_backup_stop gave a backup label without its start segment:\n${label}`)
  return file
}

/**
 * The WAL from the backup's start segment to its end segment, which is complete: pg_backup_stop
 * switches to a new one. The temporary slot kept them from being recycled meanwhile.
 */
async function copyWal(
  clusterDir: string,
  to: string,
  first: string,
  last: string,
  progress: (line: string) => void,
) {
  const segments = (await readdir(join(clusterDir, 'pg_wal')))
    .filter((name) => (WAL_SEGMENT.test(name) && name >= first && name <= last) || name.endsWith('.history'))
    .sort()
  if (!segments.includes(first) || !segments.includes(last))
    throw new Error(
      `The WAL from ${first} to ${last} is no longer in pg_wal: the copy cannot be made consistent.`,
    )
  progress(`Copying ${segments.length} WAL segments (${first} to ${last})…`)
  await mkdir(to, { mode: 0o700 })
  let bytes = 0
  for (const name of segments) bytes += await copySynced(join(clusterDir, 'pg_wal', name), join(to, name))
  await syncDirectory(to)
  return { first, bytes, segments: segments.filter((name) => WAL_SEGMENT.test(name)).length }
}

/**
 * Takes the copy of `clusterDir` into `dir` (which must not hold one), through `tx`, a connection of
 * its own held for the whole backup: pg_backup_start and pg_backup_stop must share the session.
 * `holds` counts the list just before the end: the copy holds at least as much.
 */
export async function takeBaseBackup(options: {
  tx: CopyTransaction
  clusterDir: string
  /** DATA_DIR's secret files to keep with the copy (those that exist). */
  secrets: string[]
  dir: string
  holds(tx: CopyTransaction): Promise<Record<string, number>>
  progress(line: string): void
}): Promise<BackupManifest> {
  const { tx, clusterDir } = options
  const files = backupFiles(options.dir)
  const startedAt = new Date().toISOString()
  const [server] = await tx.query<{ version: string }>(`select current_setting('server_version') as version`)
  await tx.query(
    `select pg_create_physical_replication_slot('waitlist_backup_' || pg_backend_pid(), true, true)`,
  )
  const [started] = await tx.query<{ start: string }>(
    `select pg_backup_start('waitlist backup ' || now(), true)::text as start`,
  )
  const start = started?.start ?? ''
  options.progress(`Copying the cluster's files (the backup started at WAL ${start})…`)
  let bytes = await copyTree(clusterDir, files.base, true)
  // Counted before the end: everything counted is in the copy, which may hold a few more.
  const holds = await options.holds(tx)
  const [stop] = await tx.query<{ label: string; end: string; endFile: string }>(
    `select labelfile as label, lsn::text as end, pg_walfile_name(lsn) as "endFile" from pg_backup_stop(false)`,
  )
  const endedAt = new Date().toISOString()
  if (!stop) throw new Error('pg_backup_stop returned nothing')
  await createFileDurably(join(files.base, 'backup_label'), stop.label, { mode: 0o600, flag: 'wx' })
  const wal = await copyWal(clusterDir, files.wal, startSegment(stop.label), stop.endFile, options.progress)
  bytes += wal.bytes
  await mkdir(files.secrets, { mode: 0o700 })
  for (const secret of options.secrets) {
    const text = await readFile(secret).catch(() => undefined)
    if (text)
      await createFileDurably(join(files.secrets, basename(secret)), text, { mode: 0o600, flag: 'wx' })
  }
  const manifest: BackupManifest = {
    kind: 'embedded-base-backup',
    postgres: server?.version ?? '',
    startedAt,
    endedAt,
    startLsn: start,
    startWal: wal.first,
    endLsn: stop.end,
    holds,
    walSegments: wal.segments,
    bytes,
  }
  await createFileDurably(files.manifest, `${JSON.stringify(manifest, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  })
  return manifest
}

/** Reads a finished backup's manifest, or says why the directory is not one. */
export async function readBackupManifest(dir: string): Promise<BackupManifest> {
  const text = await readFile(backupFiles(dir).manifest, 'utf8').catch(() => undefined)
  if (text === undefined)
    throw new Error(
      `${dir} holds no finished backup (no backup.json): a backup cut short, or not a backup directory.`,
    )
  const manifest = JSON.parse(text) as BackupManifest
  if (manifest.kind !== 'embedded-base-backup')
    throw new Error(`${dir}/backup.json is not a waitlist backup.`)
  return manifest
}

/** Gives a tree to the account PostgreSQL runs as (when this process is root). */
async function giveTo(path: string, account: ClusterAccount): Promise<void> {
  await chown(path, account.uid, account.gid)
  if (!(await lstat(path)).isDirectory()) return
  for (const name of await readdir(path)) await giveTo(join(path, name), account)
}

/**
 * Lays a backup out as `clusterDir` (which must not exist) with its WAL in pg_wal: the first start
 * replays it from the backup label's checkpoint to the backup's end, then runs as any cluster.
 * Built beside its place and renamed, as initdb's cluster is, so a crash leaves no half cluster.
 */
export async function layOutBaseBackup(options: {
  dir: string
  clusterDir: string
  /** Where the secrets go back: DATA_DIR. */
  dataDir: string
  account: ClusterAccount | undefined
  /** `restore --at`: replay to this moment (ISO 8601), then promote (recovery-target.ts). */
  recoveryTarget?: string
}): Promise<void> {
  const files = backupFiles(options.dir)
  const building = `${options.clusterDir}.restoring`
  await rm(building, { recursive: true, force: true })
  await copyTree(files.base, building, false)
  await writeFile(join(building, 'backup_label'), await readFile(join(files.base, 'backup_label')))
  for (const name of await readdir(files.wal))
    await copySynced(join(files.wal, name), join(building, 'pg_wal', name))
  await syncDirectory(join(building, 'pg_wal'))
  await mkdir(join(building, 'pg_wal', 'archive_status'), { recursive: true, mode: 0o700 })
  if (options.recoveryTarget) await writeRecoveryTarget(building, options.recoveryTarget)
  if (options.account) await giveTo(building, options.account)
  for (const name of await readdir(files.secrets))
    await createFileDurably(join(options.dataDir, name), await readFile(join(files.secrets, name)), {
      mode: 0o600,
      flag: 'w',
    })
  await rename(building, options.clusterDir)
  await syncDirectory(join(options.clusterDir, '..'))
}
