import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { StartupError } from '../base/startup-error'
import { createFileDurably } from './durable-file'
import { ownUid } from './private-data-dir'

/**
 * A secret kept in DATA_DIR (jwt-secret, postgres-password), or undefined when there is none yet.
 * Never through a symlink, and only a regular file of this user's that nobody else may read: a
 * file planted or loosened by another account is refused, not trusted.
 */
export async function readSecretFile(path: string): Promise<string | undefined> {
  let file: Awaited<ReturnType<typeof open>>
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // ENOTDIR: DATA_DIR is not a directory, so it holds no secret; opening it says what is wrong.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    if (code === 'ELOOP')
      throw new StartupError(
        `${path} is a symbolic link; a secret must be a file of its own. Remove the link.`,
      )
    throw new StartupError(
      `${path} cannot be read (${code}): it must be readable by the user the server runs as.`,
    )
  }
  try {
    const stats = await file.stat()
    const uid = ownUid()
    if (!stats.isFile())
      throw new StartupError(`${path} is not a regular file; a secret must be a file of its own.`)
    if (uid !== undefined && stats.uid !== uid)
      throw new StartupError(
        `${path} belongs to uid ${stats.uid}, not to uid ${uid} that runs the server, so it is not trusted. ` +
          `If you know where it came from: chown ${uid} ${path}`,
      )
    if (uid !== undefined && (stats.mode & 0o077) !== 0)
      throw new StartupError(
        `${path} has mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}: other accounts may read this secret. ` +
          `Run: chmod 600 ${path}`,
      )
    return (await file.readFile('utf8')).trim()
  } finally {
    await file.close()
  }
}

/** Writes a new secret file, mode 0600, failing with EEXIST if any entry (even a link) has the name. */
export function createSecretFile(path: string, text: string): Promise<void> {
  return createFileDurably(path, text, { mode: 0o600, flag: 'wx' })
}
