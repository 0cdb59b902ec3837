import type { Queryable } from '../../db/database'

/** The NOTIFY channel the outbox trigger signals when a signup commits. */
export const OUTBOX_CHANNEL = 'signup_deliveries'

// The form `export` writes, so the two tools print one timestamp format.
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`
export const isoUtc = (column: string) => `to_char(${column} at time zone 'UTC', ${ISO})`

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
}

export type WebhookEvent = 'waitlist.signup' | 'entry.confirmed' | 'invitation.sent' | 'entry.unsubscribed'

/**
 * Claims up to `limit` due deliveries for one attempt each. SKIP LOCKED lets several servers claim
 * side by side without waiting on or taking each other's rows; pushing run_at past the lease is
 * the claim, so no other server takes the row while this attempt is in flight, and a server that
 * dies mid-send leaves it due again once the lease ends (at least once, never two at a time).
 */
export async function claimDue(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(
    `with due as (
       select id from private.signup_deliveries
        where status = 'pending' and run_at <= now()
        order by run_at
        limit $1
        for update skip locked
     )
     update private.signup_deliveries d
        set run_at = now() + $2::double precision * interval '1 millisecond',
            attempts = d.attempts + 1
       from due, public.waitlist w
      where d.id = due.id and w.id = d.waitlist_id
     returning d.id::text as id, d.event, d.webhook_id::text as "webhookId", d.attempts as attempt,
               w.email::text as email,
               ${isoUtc('w.created_at')} as "createdAt",
               ${isoUtc('coalesce(d.occurred_at, w.created_at)')} as "occurredAt"`,
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

/**
 * Records a failed attempt and when to try again, or marks the delivery failed once that would be
 * past its retry window (counted from when it was queued). Returns the delivery's new status.
 */
export async function recordFailure(
  db: Queryable,
  delivery: ClaimedDelivery,
  error: string,
  retryInMs: number,
  retryForMs: number,
): Promise<'pending' | 'failed' | 'gone'> {
  const [row] = await db.query<{ status: 'pending' | 'failed' }>(
    `update private.signup_deliveries
        set last_error = $3,
            status = case
              when now() + $4::double precision * interval '1 millisecond'
                   > queued_at + $5::double precision * interval '1 millisecond'
              then 'failed' else 'pending' end,
            run_at = now() + $4::double precision * interval '1 millisecond'
      where id = $1::bigint and attempts = $2 and status = 'pending'
      returning status`,
    [delivery.id, delivery.attempt, error, retryInMs, retryForMs],
  )
  return row?.status ?? 'gone'
}

/** When the next pending delivery falls due, in milliseconds from now (undefined: none pending). */
export async function nextDueInMs(db: Queryable): Promise<number | undefined> {
  // Not greatest(0, …) in SQL: GREATEST skips a NULL, so an empty outbox would read as "due now"
  // and the pump would poll every few milliseconds while idle.
  const [row] = await db.query<{ ms: number | null }>(
    `select (extract(epoch from min(run_at) - now()) * 1000)::float8 as ms
       from private.signup_deliveries where status = 'pending'`,
  )
  return row?.ms == null ? undefined : Math.max(0, row.ms)
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
    `select d.id::text as id, d.event, d.status, w.email::text as email, ${isoUtc('w.created_at')} as "createdAt",
            d.attempts, ${isoUtc('d.run_at')} as "runAt", d.last_error as "lastError"
       from private.signup_deliveries d join public.waitlist w on w.id = d.waitlist_id
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
