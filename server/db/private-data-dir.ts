import { constants } from 'node:fs'
import { access, chmod, lstat, mkdir } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { resolve } from 'node:path'
import { StartupError } from '../base/startup-error'

/** The uid this process runs as; undefined where there are no uids (Windows). */
export function ownUid(): number | undefined {
  return process.getuid?.()
}

/**
 * New data directories: private to the server's user. As root the cluster runs as another account
 * that must get through to its own directory inside, hence x (but no listing) for others.
 */
function creationMode(): number {
  return ownUid() === 0 ? 0o711 : 0o700
}

function fixFor(dir: string, uid: number): string {
  const gid = process.getgid?.() ?? uid
  return uid === 0 ? `chown root ${dir}` : `chown -R ${uid}:${gid} ${dir}`
}

/**
 * DATA_DIR holds the JWT secret and the database's password: it must be this user's own, not a
 * symlink, and writable by nobody else (else another account could plant its own secrets, or swap
 * a file for a link). Created when missing; anything else is refused, naming the fix.
 */
export async function ensurePrivateDataDir(dataDir: string): Promise<string> {
  const dir = resolve(dataDir)
  const uid = ownUid()
  const before = await lstat(dir).catch(() => undefined)
  if (!before) {
    try {
      await mkdir(dir, { recursive: true, mode: creationMode() })
      // mkdir's mode passes through the umask; this is the mode meant.
      await chmod(dir, creationMode())
    } catch (error) {
      throw new StartupError(
        `The data directory ${dir} cannot be created or written (${(error as NodeJS.ErrnoException).code}). ` +
          'Give this user write access to it, or point DATA_DIR at another directory.',
      )
    }
  }
  const stats = await lstat(dir)
  if (stats.isSymbolicLink())
    throw new StartupError(
      `The data directory ${dir} is a symbolic link. Point DATA_DIR at the directory itself, which must belong to this user.`,
    )
  if (!stats.isDirectory())
    throw new StartupError(
      `The data directory ${dir} cannot be created or written (ENOTDIR). Point DATA_DIR at a directory.`,
    )
  if (uid === undefined) return dir
  if (stats.uid !== uid)
    throw new StartupError(
      `The data directory ${dir} belongs to uid ${stats.uid}, but the server runs as uid ${uid} (${userInfo().username}). ` +
        `It keeps the secrets, so it must be this user's own: ${fixFor(dir, uid)} (on a container volume, ` +
        `run that once as root), point DATA_DIR at a directory of this user, or run this as uid ${stats.uid}.`,
    )
  if ((stats.mode & 0o022) !== 0)
    throw new StartupError(
      `The data directory ${dir} is writable by ${stats.mode & 0o002 ? 'every account' : 'its group'} ` +
        `(mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}), so another account could plant its own secrets there. ` +
        `Run: chmod go-w ${dir}`,
    )
  try {
    await access(dir, constants.W_OK)
  } catch (error) {
    throw new StartupError(
      `The data directory ${dir} cannot be created or written (${(error as NodeJS.ErrnoException).code}). ` +
        `Give uid ${uid} write access to it (chmod u+rwx ${dir}; a read-only volume must be mounted read-write), ` +
        'or point DATA_DIR at another directory.',
    )
  }
  return dir
}
