import { readFileSync } from 'node:fs'
import { childrenOf } from './process-memory'

const MICROSECONDS_PER_TICK = 10_000 // USER_HZ is 100 on Linux

/** User and system CPU of a process, with (`reaped`) that of its children it has waited for, in µs. */
export function cpuMicros(pid: number, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number)
    const ticks = (fields[11] ?? 0) + (fields[12] ?? 0) + (reaped ? (fields[13] ?? 0) + (fields[14] ?? 0) : 0)
    return ticks * MICROSECONDS_PER_TICK
  } catch {
    return 0 // a backend that exited meanwhile: the postmaster's reaped time has it
  }
}

/** A PostgreSQL cluster's CPU in µs: the postmaster, its live children and those it has reaped. */
export const clusterCpuMicros = (postmaster: number) =>
  cpuMicros(postmaster, true) + childrenOf(postmaster).reduce((sum, pid) => sum + cpuMicros(pid), 0)

/** The CPU time a process has used so far (user + system), in milliseconds, from /proc/PID/stat. */
export const processCpuMs = (pid: number): number => cpuMicros(pid) / 1000
