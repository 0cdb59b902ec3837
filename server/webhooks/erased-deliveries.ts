import type { Logger } from '../base/log'
import { type Sweep, startSweep } from '../base/periodic-sweep'
import type { Database, Queryable } from '../db/database'

/**
 * An `entry.erased` delivery carries the erased address itself (the entry is gone), and keeps it
 * only while it may still be delivered. The migrations' trigger forgets it once the delivery ends,
 * delivered or failed (20261207400000_erased_delivery_forgets_address.sql). A delivery nobody
 * tries (no server with SIGNUP_WEBHOOK_URL, or none running) would never end: past its retry
 * window, this sweep ends it failed, so it forgets the address too. A delivery in flight or
 * waiting for its next attempt (run_at ahead) is the pump's: its own attempt ends it.
 */
const FORGET_OVERDUE = `update private.webhook_deliveries
    set status = 'failed', last_error = 'not delivered within its retry window; the address is forgotten'
  where event = 'entry.erased' and status = 'pending' and run_at <= now()
    and queued_at + $1::double precision * interval '1 millisecond' < now()`

/** Ends the overdue `entry.erased` deliveries failed (forgetting their addresses); how many. */
export async function endOverdueErasures(db: Queryable, retryForMs: number): Promise<number> {
  const { affected } = await db.run(FORGET_OVERDUE, [retryForMs])
  return affected
}

/** How often a running server sweeps; it also sweeps once at start-up. */
const SWEEP_MS = 60 * 60 * 1_000

/**
 * Every server sweeps at start-up, before its pump claims anything, and then every hour, with or
 * without SIGNUP_WEBHOOK_URL: an address is kept at most an hour past its retry window.
 */
export async function startForgettingErasures(db: Database, log: Logger, retryForMs: number): Promise<Sweep> {
  const sweep = startSweep(log, SWEEP_MS, {
    run: () => endOverdueErasures(db, retryForMs),
    said: (ended) =>
      `${ended} entry.erased ${ended === 1 ? 'delivery was' : 'deliveries were'} not made within ` +
      'the retry window (SIGNUP_WEBHOOK_RETRY_FOR_MS): ended failed, the addresses forgotten',
    failed: 'Could not end the overdue entry.erased deliveries; trying again later',
  })
  await sweep.first
  return sweep
}
