import { execFile } from 'node:child_process'
import { constants } from 'node:fs'
import { chmod, lstat, mkdtemp, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { StartupError } from '../../base/startup-error'
import { reaches } from './account-access'
import type { PostgresBinaries } from './binaries'
import type { ClusterAccount } from './cluster-account'
import { notRootsAlone } from './safe-path'

const run = promisify(execFile)
const STAGE = 'postgres-binaries'
const STAMP = 'staged-from'

async function readStamp(path: string): Promise<string | undefined> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined)
  return file?.readFile('utf8').finally(() => file.close())
}

/** What the staged copy was made from: the package's place, version and binary, so an update restages. */
async function sourceStamp(native: string, postgres: string): Promise<string> {
  const version = await readFile(join(dirname(native), 'package.json'), 'utf8')
    .then((text) => (JSON.parse(text) as { version?: string }).version ?? '')
    .catch(() => '')
  const binary = await stat(postgres)
  return `${native}\n${version}\n${binary.size} ${binary.mtimeMs}\n`
}

/** A staged copy made earlier, still root's alone and from the same package. */
async function stagedBefore(stage: string, stamp: string): Promise<boolean> {
  const stats = await lstat(stage).catch(() => undefined)
  if (!stats) return false
  const sound = stats.isDirectory() && stats.uid === 0 && (stats.mode & 0o022) === 0
  if (sound && (await readStamp(join(stage, STAMP))) === stamp) return true
  await rm(stage, { recursive: true, force: true })
  return false
}

function placedIn(stage: string, binaries: PostgresBinaries): PostgresBinaries {
  const moved = (path: string) => join(stage, 'bin', path.split(/[\\/]/).at(-1) ?? '')
  return { initdb: moved(binaries.initdb), postgres: moved(binaries.postgres), pgCtl: moved(binaries.pgCtl) }
}

/**
 * The binaries, where the account PostgreSQL runs as can execute them. A checkout under a private
 * directory (/root, a mode-0700 directory of a CI job) hides node_modules from that account: the
 * binaries are then copied into DATA_DIR (root's, as the server runs as root here), into a
 * directory made fresh by root, on a path no one but root can change. Never a shared temporary
 * directory, where another account could have placed programs of its own under a guessable name.
 */
export async function binariesFor(
  binaries: PostgresBinaries,
  account: ClusterAccount | undefined,
  dataDir: string,
  log: (message: string) => void,
): Promise<PostgresBinaries> {
  if (!account || reaches(account, '/', binaries.postgres)) return binaries
  const native = dirname(dirname(binaries.postgres))
  const unsafe = await notRootsAlone(dataDir)
  if (unsafe)
    throw new StartupError(
      `PostgreSQL runs as the account "${account.name}" (uid ${account.uid}), which cannot reach its binaries in ` +
        `${native} (a directory above them is private). They can be copied into DATA_DIR only on a path that is ` +
        `root's alone, and ${unsafe}. Either let that account through to the binaries (chmod o+x on each private ` +
        'directory above node_modules), choose a DATA_DIR whose every directory belongs to root and is writable by ' +
        'no one else, or run the server as a normal user.',
    )
  // It must get into DATA_DIR anyway (its cluster lives there): said before copying anything.
  if (!reaches(account, dataDir, '/bin/sh'))
    throw new StartupError(
      `PostgreSQL runs as the account "${account.name}" (uid ${account.uid}), which can reach neither its binaries ` +
        `in ${native} nor DATA_DIR (${dataDir}). Make every directory above DATA_DIR traversable by it (chmod o+x), ` +
        'choose another DATA_DIR, or run the server as a normal user.',
    )
  const stage = join(dataDir, STAGE)
  const staged = placedIn(stage, binaries)
  const stamp = await sourceStamp(native, binaries.postgres)
  if (!(await stagedBefore(stage, stamp))) {
    log(`The account "${account.name}" cannot reach ${native}; copying the PostgreSQL binaries to ${stage}.`)
    const building = await mkdtemp(`${stage}.`)
    try {
      // -P: the package's links (libpq.so -> libpq.so.5.18) stay links, inside the copy.
      await run('cp', ['-RP', `${native}/.`, building])
      await run('chmod', ['-R', 'u+rwX,go+rX,go-w', building])
      await writeFile(join(building, STAMP), stamp, { mode: 0o644, flag: 'wx' })
      await chmod(building, 0o755)
      await rename(building, stage)
    } catch (error) {
      await rm(building, { recursive: true, force: true })
      throw error
    }
  }
  if (!reaches(account, '/', staged.postgres))
    throw new StartupError(
      `The account "${account.name}" cannot run PostgreSQL from ${stage} either: make every directory above ` +
        `DATA_DIR traversable by it (chmod o+x), or run the server as a normal user.`,
    )
  return staged
}
