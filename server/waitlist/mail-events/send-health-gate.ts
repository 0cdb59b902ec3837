import type { Logger } from '../../boot/log'
import type { Database } from '../../db/database'
import { type PauseLimits, pauseReason, pauseSending, readSendHealth } from './send-health'

/**
 * Asked by the mail sender before each claim: reads the shared window, pauses sending when a rate
 * has passed its limit, and says no while sending is paused (ADR 045). Queued messages stay queued.
 */
export class SendHealthGate {
  /** The last answer: while paused, the sender sleeps instead of waking for due messages. */
  paused = false

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly limits: PauseLimits,
  ) {}

  async allowsSending(): Promise<boolean> {
    const health = await readSendHealth(this.db)
    const reason = health.paused ? undefined : pauseReason(health, this.limits)
    if (reason && (await this.db.transaction((tx) => pauseSending(tx, reason))))
      this.log.error(
        `Sending paused: ${reason}. Queued mail stays queued; see docs/invitations.md, then run npm run waitlist -- deliveries --resume`,
      )
    this.paused = health.paused !== undefined || reason !== undefined
    return !this.paused
  }
}
