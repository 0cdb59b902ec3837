import { createHash, randomBytes } from 'node:crypto'
import { link, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { StartupError } from '../base/startup-error'
import { isProcessAlive, processStartTime } from './embedded/process-alive'
import { ensurePrivateDataDir } from './private-data-dir'

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

/** Alive, counting this very process (its leftovers from an earlier life under the same pid are not). */
function liveWriter(writer: LockHolder): boolean {
  if (writer.pid === process.pid) return writer.started === processStartTime(process.pid)
  return holds(writer)
}

function parse(text: string): LockHolder {
  try {
    return JSON.parse(text) as LockHolder
  } catch {
    return {}
  }
}

/**
 * Removes a stale lock, unless another process is removing it already. Each lock's text is unique
 * (a random nonce), so the reaper's token names that one lock: of all processes that judged it
 * stale, one creates the token and removes it; the others go round again and meet the next lock.
 * The holder of a token whose creator died is dead too, so a token is judged like a lock.
 */
async function reap(path: string, stale: string, candidate: string, mine: string): Promise<void> {
  const digest = createHash('sha256').update(stale).digest('hex').slice(0, 16)
  for (let generation = 1; generation < 5; generation++) {
    const token = `${path}.reap-${digest}-${generation}`
    try {
      // A link of this process's own lock text: the token names its creator from the first instant.
      await claim(candidate, token, mine)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const reaper = parse(await readFile(token, 'utf8').catch(() => ''))
      // A live reaper is at work (or one just finished): look again in a moment.
      if (liveWriter(reaper)) return void (await sleep(20))
      continue
    }
    try {
      // Only this token's holder may remove this very lock, so it is still there, or already gone.
      if ((await readFile(path, 'utf8').catch(() => undefined)) === stale) await rm(path, { force: true })
    } finally {
      await rm(token, { force: true })
    }
    return
  }
}

/** Leftovers of processes that died while taking the lock; none is in use while a live one holds it. */
async function sweep(dataDir: string, keep: string) {
  const names = await readdir(dataDir).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(`${LOCK_FILE}.`) || join(dataDir, name) === keep) continue
    const writer = parse(await readFile(join(dataDir, name), 'utf8').catch(() => ''))
    if (writer.pid !== undefined && !liveWriter(writer)) await rm(join(dataDir, name), { force: true })
  }
}

/**
 * Creates server.lock as a hard link to this process's complete lock file. A file system without
 * hard links gets an exclusive create instead, whose text a racer may read half-written.
 */
async function claim(candidate: string, path: string, text: string) {
  try {
    await link(candidate, path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw error
    await writeFile(path, text, { flag: 'wx', mode: 0o600 })
  }
}

/**
 * One process runs the embedded cluster of a directory: a second server would fight the first
 * over it. The lock's full text is written to a file of this process's own, then hard-linked to
 * server.lock, which fails if any lock is there: no one ever reads a half-written lock, and of
 * many processes starting at once exactly one gets it. A lock left by a process that died (kill
 * -9, power loss), or by a zombie nobody reaped, is taken over.
 */
export async function lockDataDir(dataDir: string, purpose = 'server'): Promise<() => Promise<void>> {
  const dir = await ensurePrivateDataDir(dataDir)
  const path = join(dir, LOCK_FILE)
  const nonce = randomBytes(8).toString('hex')
  const mine = JSON.stringify({
    pid: process.pid,
    started: processStartTime(process.pid),
    purpose,
    since: new Date().toISOString(),
    nonce,
  })
  const candidate = `${path}.${nonce}`
  await writeFile(candidate, mine, { flag: 'wx', mode: 0o600 })
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await claim(candidate, path, mine)
        await sweep(dir, candidate)
        return async () => {
          const current = await readFile(path, 'utf8').catch(() => '')
          if (current === mine) await rm(path, { force: true })
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const text = await readFile(path, 'utf8').catch(() => undefined)
      if (text === undefined) continue // released meanwhile
      const holder = parse(text)
      if (holds(holder)) {
        throw new DataDirLockedError(
          `The data directory ${dir} is in use by another ${holder.purpose ?? 'process'} (pid ${holder.pid}). ` +
            'Stop it first, or point DATA_DIR at another directory.',
        )
      }
      await reap(path, text, candidate, mine)
    }
  } finally {
    await rm(candidate, { force: true })
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dir}; another process keeps taking it.`)
}
