import { spawnSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { basename } from 'node:path'
import { isProcessAlive } from './process-alive'

interface ProcessFacts {
  uid: number
  argv: string[]
}

/** Who runs a process and with which arguments: /proc on Linux, else ps (macOS, the BSDs). */
function factsOf(pid: number): ProcessFacts | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
    return { uid, argv }
  } catch {}
  const ps = spawnSync('ps', ['-o', 'uid=', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8' })
  const match = /^\s*(\d+)\s+(.*)$/.exec(ps.stdout?.trim() ?? '')
  if (ps.status !== 0 || !match) return undefined
  // ps joins the arguments with spaces; a data directory with a space in its path then reads as two.
  return { uid: Number(match[1]), argv: (match[2] ?? '').split(' ') }
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return a === b
  }
}

/**
 * Whether pid is this cluster's postmaster: alive, run by the cluster's account, a `postgres`
 * program started with -D on this very cluster. A postmaster.pid outlives its postmaster (kill -9)
 * and its pid may since belong to anyone: such a file is trusted for nothing, neither to find the
 * cluster nor to signal the process.
 */
export function isClusterPostmaster(pid: number, clusterDir: string, uid: number | undefined): boolean {
  if (!isProcessAlive(pid)) return false
  const facts = factsOf(pid)
  // Windows has neither /proc nor ps; a live pid in this cluster's own lock file is taken as its own.
  if (!facts) return process.platform === 'win32'
  if (uid !== undefined && facts.uid !== uid) return false
  const [program, ...args] = facts.argv
  if (!program || basename(program) !== (process.platform === 'win32' ? 'postgres.exe' : 'postgres'))
    return false
  const at = args.indexOf('-D')
  return at >= 0 && samePath(args[at + 1] ?? '', clusterDir)
}
