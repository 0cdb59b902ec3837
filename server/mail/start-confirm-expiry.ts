import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import { expireUnconfirmed } from './confirm-expiry'

export interface ConfirmExpiry {
  stop(): Promise<void>
}

/**
 * Every server sweeps the expired unconfirmed entries at start-up and then every `everyMs`
 * (CONFIRM_EXPIRE_CHECK_MS); with several servers, one at a time (an advisory lock). A sweep the
 * database could not finish is tried again at the next turn. `days` 0: entries never expire.
 */
export function startConfirmExpiry(
  db: Database,
  log: Logger,
  options: { days: number; everyMs: number },
): ConfirmExpiry | undefined {
  if (options.days <= 0) return undefined
  let running: Promise<void> = Promise.resolve()
  const sweep = () => {
    running = expireUnconfirmed(db, options.days).then(
      (erased) => {
        if (erased > 0)
          log.info(
            `Erased ${erased} unconfirmed entries older than ${options.days} days (CONFIRM_EXPIRE_DAYS)`,
          )
      },
      (error) => log.error('Could not erase the expired unconfirmed entries; trying again later', error),
    )
  }
  sweep()
  const timer = setInterval(sweep, options.everyMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
