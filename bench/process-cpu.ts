import { readFileSync } from 'node:fs'

// Linux reports a process's CPU time in clock ticks; USER_HZ is 100 on every common build.
const TICKS_PER_SECOND = 100

/** The CPU time a process has used so far (user + system), in milliseconds, from /proc/PID/stat. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name in parentheses may hold spaces: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
}
