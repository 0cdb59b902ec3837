import type { Logger } from '../../base/log'
import type { Database } from '../../db/database'
import type { MailLane } from './mail-pace'
import { LANES, type PauseLimits, pauseLane, pauseReason, readSendHealth } from './send-health'

/**
 * Asked by the mail sender before each claim: reads each lane's shared window, pauses a lane when
 * one of its rates has passed its limit, and names the lanes that may send (ADR 045). A paused
 * lane's queued messages stay queued; the other lane goes on.
 */
export class SendHealthGate {
  /** The last answer: the lanes that may send. While none may, the sender sleeps instead of waking for due messages. */
  open: readonly MailLane[] = LANES

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly limits: PauseLimits,
  ) {}

  async openLanes(): Promise<readonly MailLane[]> {
    const health = await readSendHealth(this.db)
    const open: MailLane[] = []
    for (const lane of Object.values(health)) {
      const reason = lane.paused ? undefined : pauseReason(lane, this.limits)
      if (reason && (await this.db.transaction((tx) => pauseLane(tx, lane.lane, reason))))
        this.log.error(
          `Sending paused for ${lane.name}: ${reason}. Only ${lane.name} wait, queued; ` +
            'see docs/invitations.md, then run npm run waitlist -- deliveries --resume',
        )
      if (!lane.paused && !reason) open.push(lane.lane)
    }
    this.open = open.sort()
    return this.open
  }
}
