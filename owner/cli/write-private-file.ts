import type { WriteStream } from 'node:fs'
import { open } from 'node:fs/promises'

/**
 * A stream writing to `path`, readable by its owner alone (0600). The mode given to open() applies
 * only to a file it creates, so an existing file (say 0644) is set to 0600 on the open descriptor
 * before a byte of the list is written. Ending the stream closes the file.
 */
export async function openPrivateFile(path: string): Promise<WriteStream> {
  const file = await open(path, 'w', 0o600)
  try {
    await file.chmod(0o600)
  } catch (error) {
    await file.close()
    throw error
  }
  return file.createWriteStream()
}
