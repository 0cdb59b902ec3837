/**
 * How the rest of the app, the CLI and the owner's commands queue webhook events, choose which are
 * queued, and drop an address's deliveries (private.webhook_deliveries, private.webhook_settings).
 * The sender's own queries are in delivery-queue.ts.
 */
import type { Queryable } from '../db/database'
import { notify, OUTBOXES } from '../outbox/outbox-queries'
import type { WebhookEvent } from './delivery-queue'

/**
 * Drops every delivery of one address, pending or not, case-insensitively, and returns how many.
 * Deleting the waitlist row drops them too (the foreign key cascades); an erasure request calls
 * this in its own transaction so nothing about the address is sent once it is answered.
 */
export async function dropDeliveries(tx: Queryable, email: string): Promise<number> {
  const { affected } = await tx.run(
    `delete from private.webhook_deliveries d
      using public.waitlist w
      where d.waitlist_id = w.id and w.email operator(extensions.=) $1::extensions.citext`,
    [email.trim()],
  )
  return affected
}

/**
 * Chooses, for the whole database, which events are queued: waitlist.signup by the signup trigger
 * (`enabled`, the one column it reads), every other type by queueEvent (`events`). A server sets
 * them at start-up from SIGNUP_WEBHOOK_URL and SIGNUP_WEBHOOK_EVENTS, none without a URL, so where
 * no deliverer runs (hosted Supabase, a server without a receiver) no delivery accrues.
 */
export async function setWebhookEvents(db: Queryable, events: readonly WebhookEvent[]): Promise<void> {
  await db.query(
    `insert into private.webhook_settings (singleton, enabled, events) values (true, $1, $2::text[])
     on conflict (singleton) do update set enabled = excluded.enabled, events = excluded.events, updated_at = now()`,
    [events.includes('waitlist.signup'), events.filter((event) => event !== 'waitlist.signup')],
  )
}

/** Whether any event is queued for the webhook on this database. */
export async function webhooksEnabled(db: Queryable): Promise<boolean> {
  const [row] = await db.query<{ enabled: boolean }>(
    `select coalesce(bool_or(enabled or cardinality(events) > 0), false) as enabled
       from private.webhook_settings`,
  )
  return row?.enabled ?? false
}

/** The events about one entry's status (entry-status.ts queues them as it changes it). */
export type EntryEvent = Extract<
  WebhookEvent,
  'entry.confirmed' | 'entry.joined' | 'entry.unsubscribed' | 'entry.bounced' | 'entry.complained'
>

/** When this database's settings choose an event type ($2), as queueEvent reads them. */
const CHOSEN = `exists (select 1 from private.webhook_settings
                 where $2 = any(events) or (events is null and enabled))`

/** One event for each of these entries, in the caller's transaction, as queueEvent queues one. */
export async function queueEvents(tx: Queryable, ids: readonly string[], event: EntryEvent): Promise<void> {
  if (ids.length === 0) return
  const { affected } = await tx.run(
    `insert into private.webhook_deliveries (waitlist_id, event, occurred_at)
     select id, $2, now() from unnest($1::bigint[]) as t(id) where ${CHOSEN}`,
    [ids, event],
  )
  if (affected > 0) await tx.query(`select ${notify(OUTBOXES.webhooks)}`)
}

/**
 * entry.erased, in the erasure's transaction, when chosen: the entry is gone, so the delivery
 * carries the address (the receiver erases its copies: GDPR Art. 19) and forgets it once delivered
 * (the migration's trigger).
 */
export async function queueErased(tx: Queryable, email: string): Promise<void> {
  const { affected } = await tx.run(
    `insert into private.webhook_deliveries (waitlist_id, event, occurred_at, erased_email)
     select null, $2, now(), $1 where ${CHOSEN}`,
    [email, 'entry.erased'],
  )
  if (affected > 0) await tx.query(`select ${notify(OUTBOXES.webhooks)}`)
}

/**
 * Queues one event for the signup webhook, in the caller's transaction, when this database's
 * settings choose its type (setWebhookEvents; before a server of this version set them,
 * `enabled` alone); the same signed, at-least-once delivery as the signup's. An entry event
 * (entry.confirmed, invitation.sent, entry.unsubscribed…) names its entry; mail.paused names none
 * and says why in `detail`.
 */
export async function queueEvent(
  tx: Queryable,
  waitlistId: string | null,
  event: Exclude<WebhookEvent, 'waitlist.signup' | 'entry.erased'>,
  detail: string | null = null,
): Promise<void> {
  const { affected } = await tx.run(
    `insert into private.webhook_deliveries (waitlist_id, event, occurred_at, detail)
     select $1::bigint, $2, now(), $3 where ${CHOSEN}`,
    [waitlistId, event, detail],
  )
  if (affected > 0) await tx.query(`select ${notify(OUTBOXES.webhooks)}`)
}
