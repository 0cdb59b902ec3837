import { spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { type BackupManifest, backupFiles } from '../db/cluster-backup'
import type { BackupStore } from './backup-store'
import type { ErasureLedger } from './erasure-ledger'
import { openSealed, openStream, PieceUnreadable, SEALED_HEAD, SEALED_TAG } from './sealed-piece'

const WAL_SEGMENT = /^[0-9A-F]{24}$/

async function readAll(store: BackupStore, name: string, start: number, end: number): Promise<Buffer> {
  const piece = await store.getStream(name, start, end)
  if (!piece) throw new PieceUnreadable(`${name} is missing from ${store.where}`)
  const chunks: Buffer[] = []
  for await (const chunk of piece.body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The latest erased list kept beside the backup, or none yet. */
export async function latestLedger(store: BackupStore, key: Buffer): Promise<ErasureLedger | undefined> {
  const name = (await store.list('erasures')).at(-1)
  const body = name && (await store.get(name))
  return body ? (JSON.parse(openSealed(body, key, name).toString()) as ErasureLedger) : undefined
}

/** `restore --at` a moment older than every base the store keeps: nothing can reach it. */
export class BeforeOldestBase extends Error {
  override name = 'BeforeOldestBase'
  constructor(readonly oldest: string) {
    super(`the oldest base backup is of ${oldest}`)
  }
}

/**
 * The base a restore starts from: the latest, or with `at` the latest that ended at or before it
 * (a base is consistent only from its end). Its manifest name and the manifest.
 */
async function chooseBase(store: BackupStore, key: Buffer, at?: Date) {
  const bases = (await store.list('base')).filter((name) => name.endsWith('.json'))
  if (bases.length === 0)
    throw new Error(`${store.where} holds no base backup yet: a server with BACKUP_URL takes one at start.`)
  let oldest = ''
  for (const name of bases.reverse()) {
    const body = await store.get(name)
    if (!body) throw new PieceUnreadable(`${name} vanished from ${store.where}`)
    const manifest = JSON.parse(openSealed(body, key, name).toString()) as BackupManifest
    if (!at || Date.parse(manifest.endedAt) <= at.getTime()) return { name, manifest }
    oldest = manifest.endedAt
  }
  throw new BeforeOldestBase(oldest)
}

/**
 * Fetches a base backup from the store into `work` (as `backup --to` lays one out): the latest, or
 * the latest before `at`, with every WAL segment archived since its start. Laid out and started,
 * the cluster replays them, to the last segment that reached the store or to `at`. Returns the
 * base's manifest and how many segments.
 */
export async function fetchBase(
  store: BackupStore,
  key: Buffer,
  work: string,
  progress: (line: string) => void,
  at?: Date,
): Promise<{ manifest: BackupManifest; segments: number; lastSegment: string }> {
  const { name: latest, manifest } = await chooseBase(store, key, at)
  const tarName = latest.replace(/\.json$/, '.tar')
  const size = await store.size(tarName)
  if (size === undefined) throw new PieceUnreadable(`${tarName} is missing from ${store.where}`)
  const head = await readAll(store, tarName, 0, SEALED_HEAD)
  const tag = await readAll(store, tarName, size - SEALED_TAG, size)
  const files = backupFiles(work)
  await rm(work, { recursive: true, force: true })
  await mkdir(files.dir, { recursive: true, mode: 0o700 })
  progress(`Fetching the base backup of ${manifest.endedAt} from ${store.where}…`)
  const stream = await store.getStream(tarName, SEALED_HEAD, size - SEALED_TAG)
  if (!stream) throw new PieceUnreadable(`${tarName} is missing from ${store.where}`)
  const tar = spawn('tar', ['-C', files.dir, '-xf', '-'], { stdio: ['pipe', 'ignore', 'pipe'] })
  const untarred = new Promise<void>((resolve, reject) =>
    tar.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`tar could not unpack ${tarName} (exit ${code})`)),
    ),
  )
  await pipeline(stream.body, openStream(key, tarName, head, tag), createGunzip(), tar.stdin)
  await untarred
  const segments = (await store.list('wal')).filter((name) => {
    const segment = name.slice(4)
    return (WAL_SEGMENT.test(segment) && segment >= manifest.startWal) || segment.endsWith('.history')
  })
  progress(`Fetching ${segments.length} WAL segments archived since…`)
  for (const name of segments) {
    const sealed = await store.get(name)
    if (!sealed) throw new PieceUnreadable(`${name} vanished from ${store.where}`)
    await writeFile(join(files.wal, name.slice(4)), openSealed(sealed, key, name), { mode: 0o600 })
  }
  return { manifest, segments: segments.length, lastSegment: segments.at(-1)?.slice(4) ?? manifest.startWal }
}
