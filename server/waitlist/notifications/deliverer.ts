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
 * Sends the outbox's pending deliveries, each at least once. It runs beside the HTTP server and
 * shares nothing with the insert path but the database: a receiver that hangs or is down only
 * delays deliveries, never a signup.
 */
export async function startDeliverer(options: DelivererOptions): Promise<Deliverer> {
  const { db, log, retry } = options
  const concurrency = options.concurrency ?? 4
  const target: WebhookTarget = {
    url: options.url,
    signer: options.secret ? new Webhook(options.secret) : undefined,
    timeoutMs: options.timeoutMs,
  }
  // A claim lasts well past the send's own timeout, so no other server retries a send still in flight.
  const leaseMs = 3 * options.timeoutMs
  const abandon = new AbortController()
  const inFlight = new Set<Promise<void>>()
  let stopped = false
  let pumping = false
  let pumpAgain = false
  let outboxUnreachable = false

  // One timer, for the earliest retry known to fall due before the next poll.
  let wake: { at: number; timer: NodeJS.Timeout } | undefined
  const wakeIn = (ms: number) => {
    const at = Date.now() + ms
    if (stopped || (wake && wake.at <= at)) return
    clearTimeout(wake?.timer)
    const timer = setTimeout(() => {
      wake = undefined
      void pump()
    }, ms)
    timer.unref()
    wake = { at, timer }
  }

  async function deliver(delivery: ClaimedDelivery) {
    const messageId = `msg_${delivery.webhookId}`
    const body = JSON.stringify(signupPayload(delivery.email, delivery.createdAt, new Date()))
    const result = await sendWebhook(target, messageId, body, abandon.signal)
    try {
      if (result.delivered) {
        await recordDelivered(db, delivery)
        log.info(
          `Signup notification ${messageId} delivered (attempt ${delivery.attempt}, HTTP ${result.status})`,
        )
        return
      }
      const waitMs = retryDelayMs(retry, delivery.attempt)
      const status = await recordFailure(db, delivery, result.error, waitMs, retry.retryForMs)
      if (status === 'failed') {
        log.error(
          `Signup notification ${messageId} failed for good after ${delivery.attempt} attempts: ${result.error} ` +
            '(npm run waitlist -- deliveries --retry sends it again)',
        )
      } else {
        log.error(
          `Signup notification ${messageId} attempt ${delivery.attempt} failed: ${result.error}; ` +
            `next in ${Math.round(waitMs / 100) / 10} s`,
        )
        wakeIn(waitMs)
      }
    } catch (error) {
      // The lease runs out and the delivery falls due again: at least once, still.
      log.error(`Signup notification ${messageId}: could not record the outcome`, error)
    }
  }

  let pumped: Promise<void> = Promise.resolve()
  // One pass at a time; a wake-up during a pass makes it go round once more.
  const pump = () => {
    if (pumping) pumpAgain = true
    else pumped = pumpOnce()
    return pumped
  }

  async function pumpOnce(): Promise<void> {
    pumping = true
    try {
      do {
        pumpAgain = false
        while (!stopped && inFlight.size < concurrency) {
          const claimed = await claimDue(db, concurrency - inFlight.size, leaseMs)
          for (const delivery of claimed) {
            const sending: Promise<void> = deliver(delivery).finally(() => {
              inFlight.delete(sending)
              if (!stopped) void pump()
            })
            inFlight.add(sending)
          }
          if (claimed.length === 0) break
        }
      } while (pumpAgain && !stopped)
      if (!stopped && inFlight.size === 0) {
        // Wake for the next retry that falls due before the next poll.
        const dueIn = await nextDueInMs(db)
        if (dueIn !== undefined && dueIn < pollMs) wakeIn(dueIn + 10)
      }
      if (outboxUnreachable) log.info('Signup notifications: the outbox is reachable again')
      outboxUnreachable = false
    } catch (error) {
      // Once per outage, not once per poll.
      if (!outboxUnreachable) log.error('Signup notifications: could not read the outbox', error)
      outboxUnreachable = true
    } finally {
      pumping = false
      // A wake-up that came in after the last pass round (during nextDueInMs) still counts.
      if (pumpAgain && !stopped) void pump()
    }
  }

  const pollMs = options.pollMs ?? 2_000
  const poll = setInterval(() => void pump(), pollMs)
  poll.unref()
  let unlisten: (() => Promise<void>) | undefined
  try {
    unlisten = await db.listen?.(OUTBOX_CHANNEL, () => void pump())
  } catch (error) {
    log.error(`Signup notifications: LISTEN failed, polling every ${pollMs} ms instead`, error)
  }
  void pump()

  return {
    async stop() {
      stopped = true
      clearInterval(poll)
      clearTimeout(wake?.timer)
      await unlisten?.()
      await pumped
      const grace = new Promise((resolve) => setTimeout(resolve, options.graceMs ?? 1_000).unref())
      await Promise.race([Promise.all(inFlight), grace])
      abandon.abort()
      await Promise.all(inFlight)
    },
  }
}
