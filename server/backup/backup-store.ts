import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createFileDurably, syncDirectory } from '../db/durable-file'

/**
 * Where the backup's pieces go, by name (`base/…`, `wal/…`, `erasures/…`). A piece is written
 * whole or not at all: a reader never sees half of one.
 */
export interface BackupStore {
  readonly where: string
  put(name: string, body: Buffer): Promise<void>
  /** Writes a piece from a stream (a base backup), whole or not at all. */
  putStream(name: string, body: Readable): Promise<void>
  get(name: string): Promise<Buffer | undefined>
  /** A piece's size in bytes; undefined when it is not there. */
  size(name: string): Promise<number | undefined>
  /** A piece as a stream from `start` to `end` (exclusive, else to its end), and its size. */
  getStream(name: string, start?: number, end?: number): Promise<{ body: Readable; size: number } | undefined>
  /** The names under `prefix`, sorted. */
  list(prefix: string): Promise<string[]>
  remove(name: string): Promise<void>
}

/** A directory on a disk off this machine (a network mount), for BACKUP_URL=file:///path. */
export function fileStore(root: string): BackupStore {
  const path = (name: string) => join(root, name)
  return {
    where: `file://${root}`,
    async put(name, body) {
      const target = path(name)
      await mkdir(dirname(target), { recursive: true, mode: 0o700 })
      const partial = `${target}.partial`
      await rm(partial, { force: true })
      await createFileDurably(partial, body, { mode: 0o600, flag: 'wx' })
      await rename(partial, target)
      await syncDirectory(dirname(target))
    },
    async putStream(name, body) {
      const target = path(name)
      await mkdir(dirname(target), { recursive: true, mode: 0o700 })
      const partial = `${target}.partial`
      await rm(partial, { force: true })
      await pipeline(body, createWriteStream(partial, { mode: 0o600, flags: 'wx' }))
      const file = await open(partial, 'r+')
      await file.sync().finally(() => file.close())
      await rename(partial, target)
      await syncDirectory(dirname(target))
    },
    get: (name) => readFile(path(name)).catch(() => undefined),
    size: async (name) => (await stat(path(name)).catch(() => undefined))?.size,
    async getStream(name, start, end) {
      const size = (await stat(path(name)).catch(() => undefined))?.size
      if (size === undefined) return undefined
      const range = { start: start ?? 0, ...(end === undefined ? {} : { end: end - 1 }) }
      return { body: createReadStream(path(name), range), size }
    },
    async list(prefix) {
      const dir = path(prefix)
      if (!(await stat(dir).catch(() => undefined))) return []
      const names = await readdir(dir)
      return names
        .filter((name) => !name.endsWith('.partial'))
        .map((name) => `${prefix}/${name}`)
        .sort()
    },
    remove: (name) => rm(path(name), { force: true }),
  }
}
