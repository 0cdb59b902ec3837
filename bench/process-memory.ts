import { readdirSync, readFileSync } from 'node:fs'

/** Memory of a set of processes, from Linux's /proc. */
export interface ProcessMemory {
  processes: number
  /** Resident set: each process counts the shared memory it touched, so a sum over-counts. */
  rssMiB: number
  /** Proportional set: shared pages split between the processes sharing them, so sums add up. */
  pssMiB: number
}

const MIB = 1024
const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
/** A "Name:   1234 kB" line of a /proc status file, in KiB. */
const kibField = (text: string | undefined, name: string) =>
  Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text ?? '')?.[1] ?? Number.NaN)

/** Children of a process, from each process's parent pid in /proc/PID/stat. */
export function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = read(`/proc/${entry}/stat`)
    // The command name in parentheses may hold spaces: fields are counted after its closing one.
    const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(fields?.[1]) === pid) children.push(Number(entry))
  }
  return children
}

/** Every process below one: its children, theirs, and so on (npm start → node → postgres → backends). */
export function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)])
}

/** One process (with `tree`, every process below it too): VmRSS and the PSS of smaps_rollup, summed. */
export function processMemory(pid: number, tree = false): ProcessMemory {
  const pids = tree ? [pid, ...descendantsOf(pid)] : [pid]
  let processes = 0
  let rss = 0
  let pss = 0
  for (const each of pids) {
    const vmRss = kibField(read(`/proc/${each}/status`), 'VmRSS')
    // A backend that exited between the listing and the read is simply not counted.
    if (Number.isNaN(vmRss)) continue
    processes++
    rss += vmRss
    pss += kibField(read(`/proc/${each}/smaps_rollup`), 'Pss') || 0
  }
  return { processes, rssMiB: rss / MIB, pssMiB: pss / MIB }
}

export const mib = (value: number) => `${value.toFixed(0)} MiB`
