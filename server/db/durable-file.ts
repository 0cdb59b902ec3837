import { open } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * Creates a file and syncs it and its directory before returning: a secret lost in a power cut
 * would lock the lab out of its own data. `wx` fails with EEXIST if the file is already there.
 */
export async function createFileDurably(
  path: string,
  text: string | Buffer,
  options: { mode: number; flag: 'w' | 'wx' },
) {
  const file = await open(path, options.flag, options.mode)
  try {
    await file.writeFile(text)
    await file.sync()
  } finally {
    await file.close()
  }
  await syncDirectory(dirname(path))
}

/** Makes the entries of a directory (a file created or renamed in it) survive a power cut. */
export async function syncDirectory(path: string) {
  const dir = await open(path, 'r')
  await dir.sync().finally(() => dir.close())
}
