import { createHash } from 'node:crypto'
import { existsSync, lstatSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { reaches } from '../db/embedded/account-access'
import { type ClusterAccount, DEFAULT_CLUSTER_ACCOUNT, lookUp } from '../db/embedded/cluster-account'

export const DEFAULT_DATA_DIR = './data'
/** Where root keeps the data of a checkout that PostgreSQL's account cannot enter (ADR 026). */
export const ROOT_DATA_HOME = '/var/lib/lab-site-data'

// Without the account yet (created at the first start), any unprivileged account sees what it will.
const NOBODY: ClusterAccount = { name: 'nobody', uid: 65534, gid: 65534, created: false }

interface Placement {
  dataDir: string
  /** Why the data is not in ./data, said at every start; undefined when it is. */
  note?: string
}

const placements = new Map<string, Placement>()

function nearestExisting(path: string): string {
  return existsSync(path) || dirname(path) === path ? path : nearestExisting(dirname(path))
}

/** The first directory above `path` that other accounts may not enter, for the message. */
function privateAbove(path: string): string {
  const dirs: string[] = []
  for (let dir = dirname(path); !dirs.includes(dir); dir = dirname(dir)) dirs.unshift(dir)
  const closed = (dir: string) => {
    const stats = statSync(dir, { throwIfNoEntry: false })
    return stats !== undefined && (stats.mode & 0o001) === 0
  }
  return dirs.find(closed) ?? dirname(path)
}

/** A home for root's data that nobody else can change: missing (made 0711 by root), or root's and not writable by others. */
function soundHome(home: string): boolean {
  const stats = lstatSync(home, { throwIfNoEntry: false })
  if (!stats) return existsSync(dirname(home))
  return stats.isDirectory() && stats.uid === 0 && (stats.mode & 0o022) === 0
}

function place(cwd: string, home: string): Placement {
  const here = resolve(cwd, DEFAULT_DATA_DIR)
  // A cluster already there is used where it is, even if it cannot start (the start says why).
  if (existsSync(join(here, 'postgres', 'PG_VERSION'))) return { dataDir: DEFAULT_DATA_DIR }
  const ids = lookUp(DEFAULT_CLUSTER_ACCOUNT)
  const account = ids ? { name: DEFAULT_CLUSTER_ACCOUNT, ...ids, created: false } : NOBODY
  if (reaches(account, nearestExisting(here), '/bin/sh') || !soundHome(home))
    return { dataDir: DEFAULT_DATA_DIR }
  const digest = createHash('sha256').update(here).digest('hex').slice(0, 8)
  const dataDir = join(home, `${basename(resolve(cwd))}-${digest}`)
  const note =
    `As root, PostgreSQL runs as the account "${DEFAULT_CLUSTER_ACCOUNT}", which cannot enter ${here} ` +
    `(${privateAbove(here)} is private), so the data is kept in ${dataDir} instead, the same place at every start. ` +
    'Set DATA_DIR to choose another.'
  return { dataDir, note }
}

/**
 * DATA_DIR when it is not set: ./data, except as root when the account PostgreSQL runs as cannot
 * enter it (a checkout in /root, or in any private directory) and it holds no cluster yet. The
 * embedded cluster then lives in ROOT_DATA_HOME, in a directory named after the checkout and the
 * path of its ./data, so every start and the owner's CLI find the same one. With DATABASE_URL, or
 * as a normal user, always ./data.
 */
export function defaultDataDir(
  databaseUrl: string | undefined,
  options: { cwd?: string; home?: string; asRoot?: boolean } = {},
): Placement {
  const asRoot = options.asRoot ?? (process.platform !== 'win32' && process.getuid?.() === 0)
  if (databaseUrl || !asRoot) return { dataDir: DEFAULT_DATA_DIR }
  const cwd = options.cwd ?? process.cwd()
  const home = options.home ?? ROOT_DATA_HOME
  const key = `${cwd}\n${home}`
  const placed = placements.get(key) ?? place(cwd, home)
  placements.set(key, placed)
  return placed
}

/** The note of the default placement that gave this DATA_DIR, if it was moved from ./data. */
export function dataDirNote(dataDir: string): string | undefined {
  return [...placements.values()].find((placed) => placed.dataDir === dataDir)?.note
}
