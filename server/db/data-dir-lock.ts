import { constants } from 'node:fs'
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { StartupError } from '../startup-error'
import { isProcessAlive, processStartTime } from './embedded/process-alive'

export class DataDirLockedError extends StartupError {
  override name = 'DataDirLockedError'
}

const LOCK_FILE = 'server.lock'

interface LockHolder {
  pid?: number
  started?: string
  purpose?: string
}

/** Alive, and the same process that wrote the lock, not another that got its pid after a reboot. */
function holds(holder: LockHolder): holder is LockHolder & { pid: number } {
  if (typeof holder.pid !== 'number' || holder.pid === process.pid || !isProcessAlive(holder.pid))
    return false
  return holder.started === undefined || processStartTime(holder.pid) === holder.started
}

/**
 * One process runs the embedded cluster of a directory: a second server would fight the first
 * over it. A lock left by a process that died (kill -9, power loss), or by a zombie nobody
 * reaped, is taken over.
 */
export async function lockDataDir(dataDir: string, purpose = 'server'): Promise<() => Promise<void>> {
  try {
    await mkdir(dataDir, { recursive: true })
    await access(dataDir, constants.W_OK)
  } catch (error) {
    throw new StartupError(
      `The data directory ${dataDir} cannot be created or written (${(error as NodeJS.ErrnoException).code}). ` +
        'Give this user write access to it, or point DATA_DIR at another directory.',
    )
  }
  const path = join(dataDir, LOCK_FILE)
  const mine = JSON.stringify({
    pid: process.pid,
    started: processStartTime(process.pid),
    purpose,
    since: new Date().toISOString(),
  })
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(path, mine, { flag: 'wx', mode: 0o600 })
      return async () => {
        const current = await readFile(path, 'utf8').catch(() => '')
        if (current === mine) await rm(path, { force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = await readFile(path, 'utf8')
      .then((text) => JSON.parse(text) as LockHolder)
      .catch(() => ({}) as LockHolder)
    if (holds(holder)) {
      throw new DataDirLockedError(
        `The data directory ${dataDir} is in use by another ${holder.purpose ?? 'process'} (pid ${holder.pid}). ` +
          'Stop it first, or point DATA_DIR at another directory.',
      )
    }
    await rm(path, { force: true }) // stale: its owner is gone
  }
  throw new DataDirLockedError(
    `Could not lock the data directory ${dataDir}; another process keeps taking it.`,
  )
}
