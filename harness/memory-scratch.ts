import { statfsSync } from 'node:fs'

/** Where npm test's throwaway clusters go (harness/data-dir.ts), when set. */
export const SCRATCH_ENV = 'LAB_SITE_TEST_SCRATCH'
const TMPFS_MAGIC = 0x01021994

/**
 * /dev/shm when it is a tmpfs with room for both workers' clusters, as the variable npm test's
 * suites set (the global setups in tests/setup and tests/e2e). Each test copies a 40 MB, 1,000-file
 * cluster: on this machine's ext4 a copy costs 1.2-1.6 s of system time, on tmpfs 0.12 s, and
 * test:node takes about 130 s instead of 160. fsync is a no-op there, so the suites that judge
 * durability (test:slow: crashes, the power cut, a full disk) and the bench keep to the disk.
 */
export function memoryScratch(): Record<string, string> {
  try {
    const stats = statfsSync('/dev/shm')
    const room = stats.bavail * stats.bsize
    return stats.type === TMPFS_MAGIC && room > 2 * 1024 ** 3 ? { [SCRATCH_ENV]: '/dev/shm' } : {}
  } catch {
    return {} // no /dev/shm (macOS): the temporary directory
  }
}
