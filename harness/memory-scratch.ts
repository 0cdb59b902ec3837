import { statfsSync } from 'node:fs'
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { SCRATCH_ENV } from './data-dir'
import { stopLeftPostmaster } from './test-server'

const TMPFS_MAGIC = 0x01021994
const MEMORY = '/dev/shm'

/** Whether /dev/shm is a tmpfs with room for both workers' clusters (not a container's 64 MB). */
function roomInMemory(): boolean {
  try {
    const stats = statfsSync(MEMORY)
    return stats.type === TMPFS_MAGIC && stats.bavail * stats.bsize > 2 * 1024 ** 3
  } catch {
    return false // no /dev/shm (macOS): the temporary directory
  }
}

/**
 * npm test's throwaway clusters in memory (docs/testing.md), for the global setups in tests/setup and
 * tests/e2e. Each test copies a 40 MB, 1,000-file cluster: on this machine's ext4 a copy costs
 * 1.2-1.6 s of system time, on tmpfs 0.12 s, and test:node takes about 130 s instead of 160. fsync
 * returns at once there, so the suites that judge durability (test:slow: kill -9 under load, a full
 * disk) and the bench keep to the disk. The run gets a folder of its own, removed whole at the
 * end with what a test left in it (a killed server's postmaster stopped first): memory is not freed
 * by a reboot that may be weeks away.
 */
export async function memoryScratch(): Promise<{ remove(): Promise<void> }> {
  if (!roomInMemory()) return { remove: async () => {} }
  const dir = await mkdtemp(join(MEMORY, 'lab-site-test-run-'))
  await chmod(dir, 0o755) // as root, the account PostgreSQL runs as must get through
  // The workers, started after this, inherit it.
  process.env[SCRATCH_ENV] = dir
  return {
    async remove() {
      delete process.env[SCRATCH_ENV]
      for (const entry of await readdir(dir)) await stopLeftPostmaster(join(dir, entry))
      await rm(dir, { recursive: true, force: true })
    },
  }
}
