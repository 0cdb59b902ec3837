import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { StartupError } from '../../base/startup-error'
import { asAccount } from './account-access'
import type { PostgresBinaries } from './binaries'
import type { ClusterAccount } from './cluster-account'

const run = promisify(execFile)

/** The major version of the binaries: `postgres --version` says "postgres (PostgreSQL) 18.1". */
async function binariesMajor(
  binaries: PostgresBinaries,
  account: ClusterAccount | undefined,
): Promise<string> {
  const { stdout } = await run(binaries.postgres, ['--version'], asAccount(account))
  const major = /\)\s*(\d+)/.exec(stdout)?.[1]
  if (!major) throw new Error(`Cannot read the version of ${binaries.postgres}: "${stdout.trim()}"`)
  return major
}

/**
 * A cluster is tied to the major version that created it (PG_VERSION): another major cannot open
 * it. Say which two versions meet, and how to carry the rows over, instead of PostgreSQL's own
 * log line after a failed start.
 */
export async function checkClusterVersion(
  clusterDir: string,
  binaries: PostgresBinaries,
  account: ClusterAccount | undefined,
): Promise<void> {
  const written = (await readFile(join(clusterDir, 'PG_VERSION'), 'utf8').catch(() => '')).trim()
  if (!written) return
  const running = await binariesMajor(binaries, account)
  if (written === running) return
  throw new StartupError(
    `${clusterDir} holds a PostgreSQL ${written} cluster, and this version of the server runs PostgreSQL ${running}, ` +
      'which cannot open it. To carry the rows over:\n' +
      `  1. with the version (or image) that runs PostgreSQL ${written}: npm run waitlist -- export --out waitlist.csv\n` +
      `  2. move ${clusterDir} aside (mv ${clusterDir} ${clusterDir}.pg${written})\n` +
      '  3. with this version: npm run waitlist -- import waitlist.csv\n' +
      `Or point DATA_DIR at another directory to start with an empty list.`,
  )
}
