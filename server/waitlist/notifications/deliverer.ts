import { Webhook } from 'standardwebhooks'
import type { Logger } from '../../boot/log'
import type { Database } from '../../db/database'
import { type RetryPolicy, retryDelayMs } from './backoff'
import {
  type ClaimedDelivery,
  claimDue,
  nextDueInMs,
  OUTBOX_CHANNEL,
  recordDelivered,
  recordFailure,
} from './delivery-queue'
import { signupPayload } from './payload'
import { sendWebhook, type WebhookTarget } from './send-webhook'

export interface DelivererOptions {
  db: Database
  log: Logger
  url: string
  /** whsec_… ; requests are signed when set. */
  secret?: string
  timeoutMs: number
  retry: RetryPolicy
  /** Requests in flight to the receiver at once, so at most this many connections. */
  concurrency?: number
  /** The backstop poll, for NOTIFYs missed and where the database cannot LISTEN. */
  pollMs?: number
  /** After stop(), how long a send in flight may still finish before it is abandoned (and retried later). */
  graceMs?: number
}

export interface Deliverer {
  /** Stops claiming, lets sends in flight finish for a moment, then abandons the rest. */
  stop(): Promise<void>
}

/**
 * Where the outbox pump is. `idle`: nothing to claim until a NOTIFY, the poll or a retry's wake-up.
 * `claiming`: a pass claims due deliveries and starts their sends. `claiming-again`: a wake-up came
 * during the pass, which goes round once more. `stopping`: nothing is claimed any more.
 */
type PumpState = 'idle' | 'claiming' | 'claiming-again' | 'stopping'

/**
 * Sends the outbox's pending deliveries, each at least once. It runs beside the HTTP server and
 * shares nothing with the insert path but the database: a receiver that hangs or is down only
 * delays deliveries, never a signup.
 */
export async function startDeliverer(options: DelivererOptions): Promise<Deliverer> {
  const deliverer = new OutboxDeliverer(options)
  await deliverer.start()
  return deliverer
}

class OutboxDeliverer implements Deliverer {
  private state: PumpState = 'idle'
  /** The latest pass, which stop() waits for. */
  private pass: Promise<void> = Promise.resolve()
  private outboxReachable = true
  private readonly inFlight = new Set<Promise<void>>()
  private readonly abandon = new AbortController()
  private readonly target: WebhookTarget
  private readonly concurrency: number
  private readonly pollMs: number
  // A claim lasts well past the send's own timeout, so no other server retries a send still in flight.
  private readonly leaseMs: number
  /** One timer, for the earliest retry known to fall due before the next poll. */
  private wake: { at: number; timer: NodeJS.Timeout } | undefined
  private poll: NodeJS.Timeout | undefined
  private unlisten: (() => Promise<void>) | undefined

  constructor(private readonly options: DelivererOptions) {
    this.target = {
      url: options.url,
      signer: options.secret ? new Webhook(options.secret) : undefined,
      timeoutMs: options.timeoutMs,
    }
    this.concurrency = options.concurrency ?? 4
    this.pollMs = options.pollMs ?? 2_000
    this.leaseMs = 3 * options.timeoutMs
  }

  async start(): Promise<void> {
    const { db, log } = this.options
    this.poll = setInterval(() => void this.pump(), this.pollMs)
    this.poll.unref()
    try {
      this.unlisten = await db.listen?.(OUTBOX_CHANNEL, () => void this.pump())
    } catch (error) {
      log.error(`Signup notifications: LISTEN failed, polling every ${this.pollMs} ms instead`, error)
    }
    void this.pump()
  }

  async stop(): Promise<void> {
    this.state = 'stopping'
    clearInterval(this.poll)
    clearTimeout(this.wake?.timer)
    await this.unlisten?.()
    await this.pass
    const grace = new Promise((resolve) => setTimeout(resolve, this.options.graceMs ?? 1_000).unref())
    await Promise.race([Promise.all(this.inFlight), grace])
    this.abandon.abort()
    await Promise.all(this.inFlight)
  }

  /** One pass at a time; a wake-up during a pass makes it go round once more. */
  private pump(): Promise<void> {
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
      if (this.state !== 'stopping' && this.inFlight.size === 0) await this.wakeForNextRetry()
      if (!this.outboxReachable) this.options.log.info('Signup notifications: the outbox is reachable again')
      this.outboxReachable = true
    } catch (error) {
      // Once per outage, not once per poll.
      if (this.outboxReachable)
        this.options.log.error('Signup notifications: could not read the outbox', error)
      this.outboxReachable = false
    } finally {
      // A wake-up that came in after the last round (during nextDueInMs) still counts.
      const again = this.state === 'claiming-again'
      if (this.state !== 'stopping') this.state = 'idle'
      if (again) void this.pump()
    }
  }

  private async claimWhileRoom(): Promise<void> {
    while (this.state !== 'stopping' && this.inFlight.size < this.concurrency) {
      const room = this.concurrency - this.inFlight.size
      const claimed = await claimDue(this.options.db, room, this.leaseMs)
      for (const delivery of claimed) {
        const sending: Promise<void> = this.deliver(delivery).finally(() => {
          this.inFlight.delete(sending)
          if (this.state !== 'stopping') void this.pump()
        })
        this.inFlight.add(sending)
      }
      if (claimed.length === 0) return
    }
  }

  /** Wakes for the next retry that falls due before the next poll. */
  private async wakeForNextRetry(): Promise<void> {
    const dueIn = await nextDueInMs(this.options.db)
    if (dueIn !== undefined && dueIn < this.pollMs) this.wakeIn(dueIn + 10)
  }

  private wakeIn(ms: number): void {
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

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const messageId = `msg_${delivery.webhookId}`
    const body = JSON.stringify(signupPayload(delivery.email, delivery.createdAt, new Date()))
    const result = await sendWebhook(this.target, messageId, body, this.abandon.signal)
    try {
      if (result.delivered) {
        await recordDelivered(this.options.db, delivery)
        this.options.log.info(
          `Signup notification ${messageId} delivered (attempt ${delivery.attempt}, HTTP ${result.status})`,
        )
      } else await this.recordFailed(delivery, messageId, result.error)
    } catch (error) {
      // The lease runs out and the delivery falls due again: at least once, still.
      this.options.log.error(`Signup notification ${messageId}: could not record the outcome`, error)
    }
  }

  private async recordFailed(delivery: ClaimedDelivery, messageId: string, error: string): Promise<void> {
    const { db, log, retry } = this.options
    const waitMs = retryDelayMs(retry, delivery.attempt)
    const status = await recordFailure(db, delivery, error, waitMs, retry.retryForMs)
    if (status === 'failed') {
      log.error(
        `Signup notification ${messageId} failed for good after ${delivery.attempt} attempts: ${error} ` +
          '(npm run waitlist -- deliveries --retry sends it again)',
      )
      return
    }
    log.error(
      `Signup notification ${messageId} attempt ${delivery.attempt} failed: ${error}; ` +
        `next in ${Math.round(waitMs / 100) / 10} s`,
    )
    this.wakeIn(waitMs)
  }
}
