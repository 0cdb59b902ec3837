import { execFileSync } from 'node:child_process'
import { userInfo } from 'node:os'

/** The unprivileged account a root process runs PostgreSQL as (it refuses to run as root). */
export interface ClusterAccount {
  name: string
  uid: number
  gid: number
  /** True when this call created the account (said once, at that moment). */
  created: boolean
}

export const DEFAULT_CLUSTER_ACCOUNT = 'postgres'

/** The account's ids, or undefined when there is no such account (nothing is created). */
export function lookUp(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString())
    const gid = Number(execFileSync('id', ['-g', name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString())
    return { uid, gid }
  } catch {
    return undefined
  }
}

/**
 * Undefined when this process is not root: PostgreSQL then runs as the same user. As root, the
 * `postgres` system account (created, without a home or a login shell, when missing).
 */
export function clusterAccount(name = DEFAULT_CLUSTER_ACCOUNT): ClusterAccount | undefined {
  if (process.platform === 'win32' || userInfo().uid !== 0) return undefined
  const found = lookUp(name)
  if (found) return { name, ...found, created: false }
  try {
    execFileSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        name,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
  } catch (error) {
    const reason = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message
    throw new Error(
      `PostgreSQL refuses to run as root, and the account "${name}" to run it as could not be created ` +
        `(${reason}). Create an unprivileged account named ${name}, run the server as a normal user, or set DATABASE_URL.`,
    )
  }
  const created = lookUp(name)
  if (!created) throw new Error(`Created the account "${name}" but cannot find it again.`)
  return { name, ...created, created: true }
}
