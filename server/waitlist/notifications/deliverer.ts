import { Webhook } from 'standardwebhooks'
import { type OutboxWorkerOptions, startOutboxWorker, type WakingJob } from '../outbox-pump'
import { retryDelayMs } from './backoff'
import {
  type ClaimedDelivery,
  claimDue,
  nextDueInMs,
  OUTBOX_CHANNEL,
  recordDelivered,
  recordFailure,
} from './delivery-queue'
import { eventPayload } from './payload'
import { sendWebhook, type WebhookTarget } from './send-webhook'

export interface DelivererOptions extends OutboxWorkerOptions {
  url: string
  /** whsec_… ; requests are signed when set. */
  secret?: string
}

export interface Deliverer {
  /** Stops claiming, lets sends in flight finish for a moment, then abandons the rest. */
  stop(): Promise<void>
}

/**
 * Sends the webhook outbox's pending deliveries (signups and the entry events), each at least
 * once, on an OutboxPump beside the HTTP server.
 */
export function startDeliverer(options: DelivererOptions): Promise<Deliverer> {
  return startOutboxWorker(new WebhookJob(options), options)
}

/**
 * How the log names one delivery: by its event, so an invitation's webhook is not called a signup's.
 * `Signup notification msg_…` for a signup (as the logs always said), `Webhook invitation.sent msg_…`.
 */
function deliveryName(delivery: ClaimedDelivery): string {
  const what = delivery.event === 'waitlist.signup' ? 'Signup notification' : `Webhook ${delivery.event}`
  return `${what} msg_${delivery.webhookId}`
}

class WebhookJob implements WakingJob<ClaimedDelivery> {
  readonly name = 'Signup notifications'
  readonly channel = OUTBOX_CHANNEL
  wakeIn: (ms: number) => void = () => {}
  private readonly target: WebhookTarget
  // A claim lasts well past the send's own timeout, so no other server retries a send still in flight.
  private readonly leaseMs: number

  constructor(private readonly options: DelivererOptions) {
    this.target = {
      url: options.url,
      signer: options.secret ? new Webhook(options.secret) : undefined,
      timeoutMs: options.timeoutMs,
    }
    this.leaseMs = 3 * options.timeoutMs
  }

  claim(room: number): Promise<ClaimedDelivery[]> {
    return claimDue(this.options.db, room, this.leaseMs)
  }

  nextDueInMs(): Promise<number | undefined> {
    return nextDueInMs(this.options.db)
  }

  async handle(delivery: ClaimedDelivery, abandon: AbortSignal): Promise<void> {
    const messageId = `msg_${delivery.webhookId}`
    const name = deliveryName(delivery)
    const body = JSON.stringify(eventPayload(delivery.event, delivery, new Date()))
    const result = await sendWebhook(this.target, messageId, body, abandon)
    try {
      if (result.delivered) {
        await recordDelivered(this.options.db, delivery)
        this.options.log.info(`${name} delivered (attempt ${delivery.attempt}, HTTP ${result.status})`)
      } else await this.recordFailed(delivery, name, result.error)
    } catch (error) {
      // The lease runs out and the delivery falls due again: at least once, still.
      this.options.log.error(`${name}: could not record the outcome`, error)
    }
  }

  private async recordFailed(delivery: ClaimedDelivery, name: string, error: string): Promise<void> {
    const { db, log, retry } = this.options
    const waitMs = retryDelayMs(retry, delivery.attempt)
    const status = await recordFailure(db, delivery, error, waitMs, retry.retryForMs)
    if (status === 'failed') {
      log.error(
        `${name} failed for good after ${delivery.attempt} attempts: ${error} ` +
          '(npm run waitlist -- deliveries --retry sends it again)',
      )
      return
    }
    log.error(
      `${name} attempt ${delivery.attempt} failed: ${error}; ` + `next in ${Math.round(waitMs / 100) / 10} s`,
    )
    this.wakeIn(waitMs)
  }
}
