import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import { type RetryPolicy, retryDelayMs } from './backoff'
import { type Attempt, markDone, markFailed, nextDueIn } from './outbox-queries'
import { type OutboxSender, withTimeLimit } from './outbox-sender'

/** What the pump of each outbox (the webhooks', the mail's) is started with. */
export interface PumpOptions {
  db: Database
  log: Logger
  /** One attempt's time limit; the lease is three times it. */
  timeoutMs: number
  retry: RetryPolicy
}

/** Attempts in flight at once, so at most this many connections to the receiver (nodemailer's pool is as many). */
const CONCURRENCY = 4
/** The backstop poll, for NOTIFYs missed and where the database cannot LISTEN. */
const POLL_MS = 2_000
/** After stop(), how long an attempt in flight may still finish before it is abandoned (and retried later). */
const GRACE_MS = 1_000

/** Starts a pump for the outbox's sender. */
export async function startOutbox<Item extends Attempt>(
  sender: OutboxSender<Item>,
  options: PumpOptions,
): Promise<OutboxPump<Item>> {
  const pump = new OutboxPump(sender, options)
  await pump.start()
  return pump
}

/**
 * Where the pump is. `idle`: nothing to claim until a NOTIFY, the poll or a retry's wake-up.
 * `claiming`: a pass claims due items and starts their attempts. `claiming-again`: a wake-up came
 * during the pass, which goes round once more. `stopping`: nothing is claimed any more.
 */
type PumpState = 'idle' | 'claiming' | 'claiming-again' | 'stopping'

/**
 * Works an outbox in Postgres: claims due items while there is room, runs their attempts beside the
 * HTTP server, and sleeps until a NOTIFY, the poll or the next retry. It shares nothing with the
 * insert path but the database: a receiver that hangs or is down only delays its items.
 */
export class OutboxPump<Item extends Attempt> {
  private state: PumpState = 'idle'
  /** The latest pass, which stop() waits for. */
  private pass: Promise<void> = Promise.resolve()
  private outboxReachable = true
  private readonly inFlight = new Set<Promise<void>>()
  private readonly abandon = new AbortController()
  /** One timer, for the earliest wake-up known to fall due before the next poll. */
  private wake: { at: number; timer: NodeJS.Timeout } | undefined
  private poll: NodeJS.Timeout | undefined
  private unlisten: (() => Promise<void>) | undefined
  // A claim lasts well past the send's own time limit, so no other server retries a send still in flight.
  private readonly leaseMs: number

  constructor(
    private readonly sender: OutboxSender<Item>,
    private readonly options: PumpOptions,
  ) {
    this.leaseMs = 3 * options.timeoutMs
  }

  async start(): Promise<void> {
    const { db, log } = this.options
    this.poll = setInterval(() => void this.pump(), POLL_MS)
    this.poll.unref()
    try {
      this.unlisten = await db.listen?.(this.sender.outbox.channel, () => void this.pump())
    } catch (error) {
      log.error(`${this.sender.name}: LISTEN failed, polling every ${POLL_MS} ms instead`, error)
    }
    void this.pump()
  }

  /** Stops claiming, lets attempts in flight finish for a moment, then abandons the rest. */
  async stop(): Promise<void> {
    this.state = 'stopping'
    clearInterval(this.poll)
    clearTimeout(this.wake?.timer)
    await this.unlisten?.()
    await this.pass
    const grace = new Promise((resolve) => setTimeout(resolve, GRACE_MS).unref())
    await Promise.race([Promise.all(this.inFlight), grace])
    this.abandon.abort()
    await Promise.all(this.inFlight)
  }

  /** Makes a pass in `ms` (a retry, or a slot of the sending pace), unless one is due sooner. */
  wakeIn(ms: number): void {
    const at = Date.now() + ms
    if (this.state === 'stopping' || (this.wake && this.wake.at <= at)) return
    clearTimeout(this.wake?.timer)
    const timer = setTimeout(() => {
      this.wake = undefined
      void this.pump()
    }, ms)
    timer.unref()
    this.wake = { at, timer }
  }

  /** One pass at a time; a wake-up during a pass makes it go round once more. */
  pump(): Promise<void> {
    if (this.state === 'idle') {
      this.state = 'claiming'
      this.pass = this.runPass()
    } else if (this.state === 'claiming') this.state = 'claiming-again'
    return this.pass
  }

  private async runPass(): Promise<void> {
    try {
      await this.claimWhileRoom()
      while (this.state === 'claiming-again') {
        this.state = 'claiming'
        await this.claimWhileRoom()
      }
      if (this.state !== 'stopping' && this.inFlight.size === 0) await this.wakeForNextDue()
      if (!this.outboxReachable) this.options.log.info(`${this.sender.name}: the outbox is reachable again`)
      this.outboxReachable = true
    } catch (error) {
      // Once per outage, not once per poll.
      if (this.outboxReachable)
        this.options.log.error(`${this.sender.name}: could not read the outbox`, error)
      this.outboxReachable = false
    } finally {
      // A wake-up that came in after the last round (during nextDueInMs) still counts.
      const again = this.state === 'claiming-again'
      if (this.state !== 'stopping') this.state = 'idle'
      if (again) void this.pump()
    }
  }

  private async claimWhileRoom(): Promise<void> {
    while (this.state !== 'stopping' && this.inFlight.size < CONCURRENCY) {
      const { items: claimed, slotInMs } = await this.sender.claim(
        CONCURRENCY - this.inFlight.size,
        this.leaseMs,
      )
      if (slotInMs) this.wakeIn(slotInMs)
      for (const item of claimed) {
        const attempt: Promise<void> = this.attempt(item).finally(() => {
          this.inFlight.delete(attempt)
          if (this.state !== 'stopping') void this.pump()
        })
        this.inFlight.add(attempt)
      }
      if (claimed.length === 0) return
    }
  }

  /** Wakes for the next item that falls due before the next poll. */
  private async wakeForNextDue(): Promise<void> {
    const { sender, options } = this
    const dueIn = await (sender.nextDueInMs ? sender.nextDueInMs() : nextDueIn(options.db, sender.outbox))
    if (dueIn !== undefined && dueIn < POLL_MS) this.wakeIn(dueIn + 10)
  }

  /** One attempt and its outcome, recorded; never throws. */
  private async attempt(item: Item): Promise<void> {
    const { sender, options } = this
    const result = await withTimeLimit(this.abandon.signal, options.timeoutMs, (signal) =>
      sender.send(item, signal),
    )
    try {
      if (result.status === 'sent') await this.recordSent(item, result.note)
      else if (result.status === 'permanent' && sender.recordPermanent)
        await sender.recordPermanent(item, result.error)
      else await this.recordFailed(item, result.error)
    } catch (error) {
      // The lease runs out and the item falls due again: at least once, still.
      options.log.error(`${sender.label(item)}: could not record the outcome`, error)
    }
  }

  private async recordSent(item: Item, note: string | undefined): Promise<void> {
    const { sender, options } = this
    const recorded = await (sender.recordSent
      ? sender.recordSent(item)
      : markDone(options.db, sender.outbox, item))
    options.log.info(
      `${sender.label(item)} ${sender.outbox.done} (attempt ${item.attempt}${note ? `, ${note}` : ''})` +
        (recorded ? '' : ', already recorded'),
    )
  }

  /** Backs off: the row is due again after the policy's wait, or failed once its retry window is past. */
  private async recordFailed(item: Item, error: string): Promise<void> {
    const { db, log, retry } = this.options
    const label = this.sender.label(item)
    const waitMs = retryDelayMs(retry, item.attempt)
    const status = await markFailed(db, this.sender.outbox, item, {
      error,
      retryInMs: waitMs,
      retryForMs: retry.retryForMs,
    })
    if (status === 'failed') {
      const next = this.sender.afterFailing?.(item) ?? 'npm run waitlist -- deliveries --retry sends it again'
      log.error(`${label} failed for good after ${item.attempt} attempts: ${error} (${next})`)
      return
    }
    log.error(`${label} attempt ${item.attempt} failed: ${error}; next in ${Math.round(waitMs / 100) / 10} s`)
    this.wakeIn(waitMs)
  }
}
