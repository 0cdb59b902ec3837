import { Webhook } from 'standardwebhooks'
import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import { retryPolicy } from '../outbox/backoff'
import { startOutbox } from '../outbox/outbox-pump'
import { OUTBOXES } from '../outbox/outbox-queries'
import type { OutboxSender } from '../outbox/outbox-sender'
import { type ClaimedDelivery, claimDue, WEBHOOK_EVENTS } from './delivery-queue'
import { startForgettingErasures } from './erased-deliveries'
import { eventPayload } from './payload'
import { sendWebhook } from './send-webhook'
import type { WebhookEnv } from './webhook-env'
import { setWebhookEvents } from './webhook-events'

/**
 * Switches the outbox on for the event types of SIGNUP_WEBHOOK_EVENTS and starts sending it when
 * SIGNUP_WEBHOOK_URL is set; switches it off otherwise, so signups made while no server sends queue
 * nothing. An event type not chosen is never queued. The switch is per database: servers sharing
 * one Postgres should be configured alike (the last to start decides). Either way, an erased
 * address waiting in the outbox past its retry window is forgotten (erased-deliveries.ts).
 */
export async function startWebhooks(
  env: WebhookEnv,
  db: Database,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const url = env.SIGNUP_WEBHOOK_URL
  await setWebhookEvents(db, url ? env.SIGNUP_WEBHOOK_EVENTS : [])
  const forgetting = await startForgettingErasures(db, log, env.SIGNUP_WEBHOOK_RETRY_FOR_MS)
  if (!url) return forgetting
  const signer = env.SIGNUP_WEBHOOK_SECRET ? new Webhook(env.SIGNUP_WEBHOOK_SECRET) : undefined
  // What is the webhooks' own: the payload, signed. The pump does the rest (server/outbox/).
  const sender: OutboxSender<ClaimedDelivery> = {
    name: 'Signup notifications',
    outbox: OUTBOXES.webhooks,
    label: deliveryName,
    claim: async (room, leaseMs) => ({
      items: await claimDue(db, room, leaseMs, env.SIGNUP_WEBHOOK_DETAILS),
    }),
    // Its address is forgotten as it fails (erased-deliveries.ts): nothing is left to send again.
    afterFailing: (delivery) =>
      delivery.event === 'entry.erased'
        ? 'its address is forgotten: erase that person from the receiver by hand'
        : undefined,
    send(delivery, signal) {
      const body = JSON.stringify(eventPayload(delivery.event, delivery, new Date()))
      return sendWebhook({ url, signer }, `msg_${delivery.webhookId}`, body, signal)
    },
  }
  const pump = await startOutbox(sender, {
    db,
    log,
    timeoutMs: env.SIGNUP_WEBHOOK_TIMEOUT_MS,
    retry: retryPolicy(env.SIGNUP_WEBHOOK_RETRY_BASE_MS, env.SIGNUP_WEBHOOK_RETRY_FOR_MS),
  })
  log.info(sendingTo(env, url, signer !== undefined))
  return {
    async stop() {
      await pump.stop()
      await forgetting.stop()
    },
  }
}

/** Where the notifications go: the origin only, as a Slack or Discord webhook's path is its secret. */
function sendingTo(env: WebhookEnv, url: string, signed: boolean): string {
  const chosen = env.SIGNUP_WEBHOOK_EVENTS
  const details = env.SIGNUP_WEBHOOK_DETAILS
  return (
    `Signup notifications go to ${new URL(url).origin}` +
    (signed ? ' (signed)' : ' (unsigned: set SIGNUP_WEBHOOK_SECRET to sign them)') +
    (chosen.length < WEBHOOK_EVENTS.length ? `, only ${chosen.join(', ')}` : '') +
    (details.length > 0 ? `, with each entry's ${details.join(' and ')}` : '')
  )
}

/**
 * How the log names one delivery: by its event, so an invitation's webhook is not called a signup's.
 * `Signup notification msg_…` for a signup (as the logs always said), `Webhook invitation.sent msg_…`.
 */
function deliveryName(delivery: ClaimedDelivery): string {
  const what = delivery.event === 'waitlist.signup' ? 'Signup notification' : `Webhook ${delivery.event}`
  return `${what} msg_${delivery.webhookId}`
}
