import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { nextDueIn, recordAttemptFailed } from '../outbox-queries'

/** The NOTIFY channel the outbox trigger signals when a signup commits. */
export const OUTBOX_CHANNEL = 'signup_deliveries'

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  /** The delivery's own id (one per event). */
  id: string
  /** What happened: waitlist.signup, entry.confirmed, invitation.sent or entry.unsubscribed. */
  event: WebhookEvent
  /** Sent as `webhook-id` (msg_<uuid>): the same on every attempt, unique across databases. */
  webhookId: string
  /** This attempt's number, from 1; it also fences the attempt's outcome (see recordFailure). */
  attempt: number
  email: string
  createdAt: string
  /** When the event happened (the signup's own time for waitlist.signup). */
  occurredAt: string
  /** mail.paused's reason; null for entry events. */
  detail: string | null
}

export type WebhookEvent =
  | 'waitlist.signup'
  | 'entry.confirmed'
  | 'invitation.sent'
  | 'entry.unsubscribed'
  | 'entry.bounced'
  | 'entry.complained'
  /** About no entry: sending paused itself (email and createdAt are empty, detail says why). */
  | 'mail.paused'

/**
 * Claims up to `limit` due deliveries for one attempt each. SKIP LOCKED lets several servers claim
 * side by side without waiting on or taking each other's rows; pushing run_at past the lease is
 * the claim, so no other server takes the row while this attempt is in flight, and a server that
 * dies mid-send leaves it due again once the lease ends (at least once, never two at a time).
 */
export async function claimDue(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(
    `with due as (
       select id, waitlist_id from private.signup_deliveries
        where status = 'pending' and run_at <= now()
        order by run_at
        limit $1
        for update skip locked
     ),
     -- A mail.paused event is about no entry: its address and signup time are empty.
     due_entry as (
       select due.id, w.email, w.created_at from due left join public.waitlist w on w.id = due.waitlist_id
     )
     update private.signup_deliveries d
        set run_at = now() + $2::double precision * interval '1 millisecond',
            attempts = d.attempts + 1
       from due_entry e
      where d.id = e.id
     returning d.id::text as id, d.event, d.webhook_id::text as "webhookId", d.attempts as attempt,
               coalesce(e.email::text, '') as email,
               coalesce(${isoUtc('e.created_at')}, '') as "createdAt",
               ${isoUtc('coalesce(d.occurred_at, e.created_at)')} as "occurredAt", d.detail`,
    [limit, leaseMs],
  )
}

/** Records a 2xx. Fenced by the attempt number: a stale attempt whose lease ran out changes nothing. */
export async function recordDelivered(db: Queryable, delivery: ClaimedDelivery): Promise<void> {
  await db.query(
    `update private.signup_deliveries
        set status = 'delivered', delivered_at = now(), last_error = null
      where id = $1::bigint and attempts = $2 and status = 'pending'`,
    [delivery.id, delivery.attempt],
  )
}

/** Records a failed attempt and when to try again (outbox-queries.ts). */
export function recordFailure(
  db: Queryable,
  delivery: ClaimedDelivery,
  error: string,
  retryInMs: number,
  retryForMs: number,
): Promise<'pending' | 'failed' | 'gone'> {
  return recordAttemptFailed(db, 'private.signup_deliveries', delivery, { error, retryInMs, retryForMs })
}

/** When the next pending delivery falls due, in milliseconds from now (undefined: none pending). */
export function nextDueInMs(db: Queryable): Promise<number | undefined> {
  return nextDueIn(db, 'private.signup_deliveries')
}

export interface DeliveryRow {
  id: string
  event: WebhookEvent
  status: 'pending' | 'failed'
  email: string
  createdAt: string
  attempts: number
  runAt: string
  lastError: string | null
}

/** Deliveries not yet made, pending then failed, oldest signup first (the owner's CLI). */
export async function listUndelivered(db: Queryable): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `select d.id::text as id, d.event, d.status, coalesce(w.email::text, '') as email,
            coalesce(${isoUtc('w.created_at')}, ${isoUtc('d.occurred_at')}) as "createdAt",
            d.attempts, ${isoUtc('d.run_at')} as "runAt", d.last_error as "lastError"
       from private.signup_deliveries d left join public.waitlist w on w.id = d.waitlist_id
      where d.status in ('pending', 'failed')
      order by d.status desc, w.created_at, w.id, d.id`,
  )
}

/** Puts every failed delivery back in the queue, due now, with a fresh retry window. Returns how many. */
export async function retryFailed(db: Queryable): Promise<number> {
  const { affected } = await db.run(
    `update private.signup_deliveries
        set status = 'pending', run_at = now(), queued_at = now(), attempts = 0
      where status = 'failed'`,
  )
  return affected
}
