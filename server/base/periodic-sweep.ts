import type { Logger } from './log'

/** A sweep started by startSweep: its first pass, begun at once, and a stop that waits for a pass. */
export interface Sweep {
  first: Promise<void>
  stop(): Promise<void>
}

/**
 * A database sweep that every server runs at start-up and then every `everyMs`: a pass at a time,
 * its count said in the log when it did anything, a failure logged and tried again at the next turn
 * (the expiry of unconfirmed entries, the erasures' deliveries no server made). The timer keeps no
 * process alive; `stop` waits for a pass under way.
 */
export function startSweep(
  log: Logger,
  everyMs: number,
  sweep: { run(): Promise<number>; said(count: number): string; failed: string },
): Sweep {
  let running: Promise<void> = Promise.resolve()
  let busy = false
  const pass = () => {
    // A pass longer than the period (a base backup) is not joined by the next: that turn is skipped.
    if (busy) return running
    busy = true
    running = sweep.run().then(
      (count) => {
        if (count > 0) log.info(sweep.said(count))
      },
      (error) => log.error(sweep.failed, error),
    )
    running = running.finally(() => {
      busy = false
    })
    return running
  }
  const first = pass()
  const timer = setInterval(pass, everyMs)
  timer.unref()
  return {
    first,
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
