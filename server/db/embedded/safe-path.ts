import { lstat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'

/**
 * Why a path is not root's alone, or undefined when it is: every directory from / down is owned by
 * root, no symbolic link, and none is writable by others unless sticky (as /tmp: there only an
 * entry's owner, root here, may rename or remove it). Binaries run from such a path are exactly the
 * ones root put there.
 */
export async function notRootsAlone(path: string): Promise<string | undefined> {
  const full = resolve(path)
  const parts: string[] = []
  for (let current = full; ; current = dirname(current)) {
    parts.unshift(current)
    if (dirname(current) === current) break
  }
  for (const [index, part] of parts.entries()) {
    const stats = await lstat(part).catch(() => undefined)
    if (!stats) return `${part} does not exist`
    if (stats.isSymbolicLink()) return `${part} is a symbolic link`
    if (stats.uid !== 0) return `${part} belongs to uid ${stats.uid}, not root`
    const last = index === parts.length - 1
    const sticky = (stats.mode & 0o1000) !== 0
    if ((stats.mode & 0o022) !== 0 && (last || !sticky))
      return `${part} is writable by others (mode ${(stats.mode & 0o7777).toString(8)})`
  }
  return undefined
}
