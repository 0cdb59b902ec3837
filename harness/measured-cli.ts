import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { ROOT } from '../server/base/paths'

export interface MeasuredRun {
  code: number | null
  ms: number
  /** The Node process's own peak resident set (VmHWM), in MiB. */
  peakRssMiB: number
  stderr: string
}

/** VmHWM ("high water mark"): the most memory the process has held resident so far, in KiB. */
export function peakRssKiB(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : undefined
  } catch {
    return undefined // it has exited
  }
}

/**
 * `npm run waitlist -- …args` as one Node process (no npm or tsx wrapper around it), its output
 * thrown away: the wall time from spawn to exit and its peak RSS, read from /proc every 20 ms
 * while it runs (VmHWM only grows, so the last reading is the peak but for its last moments).
 */
export async function runMeasured(env: Record<string, string>, args: string[]): Promise<MeasuredRun> {
  const started = performance.now()
  const child = spawn(process.execPath, ['--import', 'tsx', 'owner/cli/waitlist-cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk
  })
  let peak = 0
  const poll = setInterval(() => {
    peak = Math.max(peak, peakRssKiB(child.pid ?? 0) ?? 0)
  }, 20)
  const [code] = (await once(child, 'exit')) as [number | null]
  clearInterval(poll)
  return { code, ms: performance.now() - started, peakRssMiB: peak / 1024, stderr }
}
