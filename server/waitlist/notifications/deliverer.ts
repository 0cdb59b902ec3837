import { Webhook } from 'standardwebhooks'
import { type OutboxSender, type PumpOptions, startOutbox } from '../../outbox/outbox-pump'
import { OUTBOXES } from '../../outbox/outbox-queries'
import { type ClaimedDelivery, claimDue } from './delivery-queue'
import { eventPayload } from './payload'
import { sendWebhook } from './send-webhook'

export interface DelivererOptions extends PumpOptions {
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
 * once, on the outbox pump beside the HTTP server. What is the webhooks' own: the payload, signed.
 */
export function startDeliverer(options: DelivererOptions): Promise<Deliverer> {
  const signer = options.secret ? new Webhook(options.secret) : undefined
  const sender: OutboxSender<ClaimedDelivery> = {
    name: 'Signup notifications',
    outbox: OUTBOXES.webhooks,
    label: deliveryName,
    claim: async (room, leaseMs) => ({ items: await claimDue(options.db, room, leaseMs) }),
    send(delivery, signal) {
      const body = JSON.stringify(eventPayload(delivery.event, delivery, new Date()))
      return sendWebhook({ url: options.url, signer }, `msg_${delivery.webhookId}`, body, signal)
    },
  }
  return startOutbox(sender, options)
}

/**
 * How the log names one delivery: by its event, so an invitation's webhook is not called a signup's.
 * `Signup notification msg_…` for a signup (as the logs always said), `Webhook invitation.sent msg_…`.
 */
function deliveryName(delivery: ClaimedDelivery): string {
  const what = delivery.event === 'waitlist.signup' ? 'Signup notification' : `Webhook ${delivery.event}`
  return `${what} msg_${delivery.webhookId}`
}
