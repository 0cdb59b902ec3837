import { readFileSync } from 'node:fs'

/**
 * Whether a process is alive. A zombie (exited, not yet reaped by its parent) answers signal 0
 * like a live process, yet holds nothing: on Linux its state in /proc says so, and it counts as
 * dead, so a lock it left never blocks a restart.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return processState(pid) !== 'Z'
}

/** The fields of /proc/PID/stat after the command name, or undefined where there is no /proc. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name, in parentheses, may itself contain spaces or parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/** The one-letter state (R, S, D, Z…). */
export function processState(pid: number): string | undefined {
  return statFields(pid)?.[0]
}

/**
 * When the process started, in clock ticks since boot (Linux). With the pid it names one process
 * for good: after a reboot or a power cut, a lock's pid may belong to someone else by then.
 */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19]
}
