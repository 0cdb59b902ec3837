import { open } from 'node:fs/promises'

/**
 * Writes `text` to `path`, readable by its owner alone (0600). The mode given to open() applies
 * only to a file it creates, so an existing file (say 0644) is set to 0600 on the open descriptor
 * before a byte of the list is written.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const file = await open(path, 'w', 0o600)
  try {
    await file.chmod(0o600)
    await file.writeFile(text)
  } finally {
    await file.close()
  }
}
