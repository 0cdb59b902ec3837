import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chown, mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { syncDirectory } from '../durable-file'
import { asAccount } from './account-access'
import type { PostgresBinaries } from './binaries'
import type { ClusterAccount } from './cluster-account'

const run = promisify(execFile)

/**
 * Creates the cluster with initdb, synced to disk (no --no-sync: a power cut right after the first
 * start must not leave a broken cluster). It is built beside its final place and renamed there, so
 * a crash mid-way leaves no half cluster for the next start to trip over.
 */
export async function initCluster(options: {
  binaries: PostgresBinaries
  clusterDir: string
  password: string
  account: ClusterAccount | undefined
}): Promise<void> {
  const { binaries, clusterDir, password, account } = options
  const building = `${clusterDir}.initdb`
  await rm(building, { recursive: true, force: true })
  await mkdir(building, { recursive: true, mode: 0o700 })
  const passwordFile = join(building, '.pwfile')
  await writeFile(passwordFile, password, { mode: 0o600 })
  if (account) {
    await chown(building, account.uid, account.gid)
    await chown(passwordFile, account.uid, account.gid)
  }
  const cluster = join(building, 'data')
  try {
    await run(
      binaries.initdb,
      [
        '-D',
        cluster,
        '-U',
        'postgres',
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // The builtin provider's C.UTF-8: Unicode-aware upper/lower for citext, no OS locales needed.
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
      ],
      { ...asAccount(account), cwd: building, timeout: 120_000 },
    )
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message
    await rm(building, { recursive: true, force: true })
    throw new Error(`initdb could not create the database cluster in ${clusterDir}:\n${detail}`)
  }
  await rename(cluster, clusterDir)
  // The rename is only durable once the directory holding it is synced.
  await syncDirectory(dirname(clusterDir))
  await rm(building, { recursive: true, force: true })
}

export function isInitialized(clusterDir: string): boolean {
  return existsSync(join(clusterDir, 'PG_VERSION'))
}
