import type { Queryable } from '../db/database'
import { isoUtc } from '../db/iso-utc'
import {
  claimWithLease,
  listUndelivered,
  OUTBOXES,
  retryFailed,
  type UndeliveredRow,
} from '../outbox/outbox-queries'
import type { WebhookDetail } from './webhook-details'

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  /** The delivery's own id (one per event). */
  id: string
  /** What happened: waitlist.signup, entry.confirmed, invitation.sent, entry.erased… */
  event: WebhookEvent
  /** Sent as `webhook-id` (msg_<uuid>): the same on every attempt, unique across databases. */
  webhookId: string
  /** This attempt's number, from 1; it also fences the attempt's outcome. */
  attempt: number
  email: string
  createdAt: string
  /** When the event happened (the signup's own time for waitlist.signup). */
  occurredAt: string
  /** mail.paused's reason; null for entry events. */
  detail: string | null
  /** The entry's source, read when SIGNUP_WEBHOOK_DETAILS asks for it (null: kept without one). */
  source?: string | null
  /** The entry's kept answers, read when SIGNUP_WEBHOOK_DETAILS asks for them ({} when none). */
  answers?: Record<string, string>
}

/** Every event the webhook can carry; mail.paused is about no entry (its detail says why). */
export const WEBHOOK_EVENTS = [
  'waitlist.signup',
  'entry.confirmed',
  'entry.answered',
  'invitation.sent',
  'entry.joined',
  'entry.unsubscribed',
  'entry.bounced',
  'entry.complained',
  'entry.erased',
  'mail.paused',
] as const

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** The columns each detail adds to a claimed delivery (`due` is the entry's row, `o` the delivery's). */
const DETAIL_COLUMNS: Record<WebhookDetail, string> = {
  source: 'due.source',
  // The kept answers only: an agent's proposed ones (private.proposed_answers) are not the person's.
  answers: `case when o.waitlist_id is null then null else coalesce(
              (select a.answers from private.entry_answers a where a.waitlist_id = o.waitlist_id), '{}'::jsonb) end as answers`,
}

/**
 * Claims up to `limit` due deliveries for one attempt each, oldest due first (claimWithLease), with
 * the entry's details SIGNUP_WEBHOOK_DETAILS asks for, as they are when the event is sent.
 */
export function claimDue(
  db: Queryable,
  limit: number,
  leaseMs: number,
  details: readonly WebhookDetail[] = [],
): Promise<ClaimedDelivery[]> {
  const extra = details.map((detail) => `, ${DETAIL_COLUMNS[detail]}`).join('')
  return claimWithLease(db, OUTBOXES.webhooks, {
    // A mail.paused event is about no entry: its address and signup time are empty. An
    // entry.erased one is about an entry gone: it carries its address itself, and no signup time.
    due: `select d.id, coalesce(w.email::text, d.erased_email) as email, w.created_at, w.source
            from private.webhook_deliveries d left join public.waitlist w on w.id = d.waitlist_id
           where d.status = 'pending' and d.run_at <= now()
           order by d.run_at limit $1 for update of d skip locked`,
    params: [limit],
    leaseMs,
    returning: `o.id::text as id, o.event, o.webhook_id::text as "webhookId", o.attempts as attempt,
                coalesce(due.email, '') as email, coalesce(${isoUtc('due.created_at')}, '') as "createdAt",
                ${isoUtc('coalesce(o.occurred_at, due.created_at)')} as "occurredAt", o.detail${extra}`,
  })
}

export interface DeliveryRow extends UndeliveredRow {
  event: WebhookEvent
  status: 'pending' | 'failed'
  createdAt: string
}

/** Deliveries not yet made, pending then failed, oldest signup first (the owner's CLI). */
export function listUndeliveredWebhooks(db: Queryable): Promise<DeliveryRow[]> {
  return listUndelivered<DeliveryRow>(db, OUTBOXES.webhooks, {
    statuses: ['pending', 'failed'],
    columns: `o.event, coalesce(${isoUtc('w.created_at')}, ${isoUtc('o.occurred_at')}) as "createdAt"`,
    join: 'left join',
    order: 'w.created_at, w.id, o.id',
  })
}

/**
 * `deliveries --retry` for the webhooks: every failed delivery again, but an `entry.erased` that
 * forgot its address when it failed (erased-deliveries.ts) has nothing left to send.
 */
export function retryFailedWebhooks(db: Queryable): Promise<number> {
  return retryFailed(db, OUTBOXES.webhooks, `event <> 'entry.erased' or erased_email is not null`)
}

/** A failed `entry.erased` that forgot its address: listed by its time alone, never sent again. */
export const forgotten = (row: DeliveryRow) => row.event === 'entry.erased' && row.status === 'failed'
