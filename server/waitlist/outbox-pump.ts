import type { Logger } from '../boot/log'
import type { Database } from '../db/database'
import type { RetryPolicy } from './notifications/backoff'

/** What one outbox (webhook deliveries, mail) does; the pump decides when. */
export interface OutboxJob<Item> {
  /** How the logs name it, e.g. "Signup notifications". */
  name: string
  /** The NOTIFY channel its outbox trigger or queueing signals. */
  channel: string
  /** Claims up to `room` due items for one attempt each (a lease, see delivery-queue.ts). */
  claim(room: number): Promise<Item[]>
  /** Makes one attempt and records its outcome; never throws. `abandon` fires when the server stops. */
  handle(item: Item, abandon: AbortSignal): Promise<void>
  /** When the next pending item falls due, in ms from now (undefined: none pending). */
  nextDueInMs(): Promise<number | undefined>
}

export interface PumpOptions {
  db: Database
  log: Logger
  /** Items in flight at once. */
  concurrency: number
  /** The backstop poll, for NOTIFYs missed and where the database cannot LISTEN. */
  pollMs?: number
  /** After stop(), how long an attempt in flight may still finish before it is abandoned (and retried later). */
  graceMs?: number
}

/** What every outbox worker (the webhook deliverer, the mail sender) is started with. */
export interface OutboxWorkerOptions {
  db: Database
  log: Logger
  /** One attempt's time limit; the lease is three times it. */
  timeoutMs: number
  retry: RetryPolicy
  /** Attempts in flight at once, so at most this many connections to the receiver. */
  concurrency?: number
  /** The backstop poll, for NOTIFYs missed and where the database cannot LISTEN. */
  pollMs?: number
  /** After stop(), how long an attempt in flight may still finish before it is abandoned (and retried later). */
  graceMs?: number
}

/** A job whose retries wake the pump that runs it. */
export interface WakingJob<Item> extends OutboxJob<Item> {
  wakeIn: (ms: number) => void
}

/** Starts a pump for the job (four attempts at a time unless told), wired to wake it for retries. */
export async function startOutboxWorker<Item>(
  job: WakingJob<Item>,
  options: OutboxWorkerOptions,
): Promise<OutboxPump<Item>> {
  const pump = new OutboxPump(job, {
    db: options.db,
    log: options.log,
    concurrency: options.concurrency ?? 4,
    pollMs: options.pollMs,
    graceMs: options.graceMs,
  })
  job.wakeIn = (ms) => pump.wakeIn(ms)
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
export class OutboxPump<Item> {
  private state: PumpState = 'idle'
  /** The latest pass, which stop() waits for. */
  private pass: Promise<void> = Promise.resolve()
  private outboxReachable = true
  private readonly inFlight = new Set<Promise<void>>()
  private readonly abandon = new AbortController()
  private readonly pollMs: number
  /** One timer, for the earliest wake-up known to fall due before the next poll. */
  private wake: { at: number; timer: NodeJS.Timeout } | undefined
  private poll: NodeJS.Timeout | undefined
  private unlisten: (() => Promise<void>) | undefined

  constructor(
    private readonly job: OutboxJob<Item>,
    private readonly options: PumpOptions,
  ) {
    this.pollMs = options.pollMs ?? 2_000
  }

  async start(): Promise<void> {
    const { db, log } = this.options
    this.poll = setInterval(() => void this.pump(), this.pollMs)
    this.poll.unref()
    try {
      this.unlisten = await db.listen?.(this.job.channel, () => void this.pump())
    } catch (error) {
      log.error(`${this.job.name}: LISTEN failed, polling every ${this.pollMs} ms instead`, error)
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
    const grace = new Promise((resolve) => setTimeout(resolve, this.options.graceMs ?? 1_000).unref())
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
      if (!this.outboxReachable) this.options.log.info(`${this.job.name}: the outbox is reachable again`)
      this.outboxReachable = true
    } catch (error) {
      // Once per outage, not once per poll.
      if (this.outboxReachable) this.options.log.error(`${this.job.name}: could not read the outbox`, error)
      this.outboxReachable = false
    } finally {
      // A wake-up that came in after the last round (during nextDueInMs) still counts.
      const again = this.state === 'claiming-again'
      if (this.state !== 'stopping') this.state = 'idle'
      if (again) void this.pump()
    }
  }

  private async claimWhileRoom(): Promise<void> {
    while (this.state !== 'stopping' && this.inFlight.size < this.options.concurrency) {
      const claimed = await this.job.claim(this.options.concurrency - this.inFlight.size)
      for (const item of claimed) {
        const attempt: Promise<void> = this.job.handle(item, this.abandon.signal).finally(() => {
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
    const dueIn = await this.job.nextDueInMs()
    if (dueIn !== undefined && dueIn < this.pollMs) this.wakeIn(dueIn + 10)
  }
}
