import { maskEmails } from '../../base/log'
import type { Database, Queryable } from '../../db/database'
import { claimWithLease, markDone, OUTBOXES } from '../../outbox/outbox-queries'
import { changeStatus } from '../../waitlist/entry-status'
import { queueEvent } from '../../webhooks/webhook-events'
import type { MessageKind } from '../messages/compose-message'
import { type MailLane, takeMailSlot } from './mail-pace'

/** A message claimed for one attempt. */
export interface ClaimedMail {
  id: string
  uuid: string
  kind: MessageKind
  /** Null for a test send, which names no entry. */
  waitlistId: string | null
  email: string
  queuedAt: Date
  messageDomain: string
  /** This attempt's number, from 1; it fences the attempt's outcome, as for the webhooks. */
  attempt: number
}

export type MailClaim = { items: ClaimedMail[]; slotInMs: number }

/** The due messages of one lane (priority), oldest first, locked (aliased `o`). */
const dueInLane = (lane: MailLane) => `
  select o.id::text as id, o.priority as lane from private.mail_outbox o
   where o.status = 'pending' and o.priority = ${lane} and o.run_at <= now()
     and not exists (select 1 from private.entry_status s
                      where s.waitlist_id = o.waitlist_id and s.status in ('unsubscribed', 'bounced', 'complained'))
   order by o.run_at
   limit $1
   for update of o skip locked`

/** The open lanes' due messages, one from each in turn (no cap: the claim takes them in this order). */
function interleave<T extends { lane: MailLane }>(rows: T[]): T[] {
  const lanes = [rows.filter((row) => row.lane === 0), rows.filter((row) => row.lane === 1)]
  const order: T[] = []
  for (let i = 0; i < rows.length; i++) {
    const next = lanes[i % 2]?.shift() ?? lanes[(i + 1) % 2]?.shift()
    if (next) order.push(next)
  }
  return order
}

/**
 * Claims up to `room` due messages of the `open` lanes (those send health has not paused), in one
 * transaction: the rows of each lane (confirmations, invitations; FOR UPDATE SKIP LOCKED, so
 * several servers claim side by side), then, under a MAIL_PER_MINUTE cap, a slot of the shared pace
 * for one message of the lane whose turn it is (mail-pace.ts). Without a slot nothing is claimed
 * and `slotInMs` says when to come back. The claim is a lease (claimWithLease): a server that dies
 * mid-send leaves the message due again. Messages to an address that unsubscribed, complained or
 * bounced are never claimed.
 */
export async function claimMail(
  db: Database,
  room: number,
  leaseMs: number,
  perMinute: number,
  open: readonly MailLane[],
): Promise<MailClaim> {
  if (open.length === 0) return { items: [], slotInMs: 0 }
  return db.transaction(async (tx) => {
    const due = interleave(
      await tx.query<{ id: string; lane: MailLane }>(
        `with ${open.map((lane) => `lane${lane} as (${dueInLane(lane)})`).join(', ')}
         ${open.map((lane) => `select * from lane${lane}`).join(' union all ')}`,
        [room],
      ),
    )
    if (due.length === 0) return { items: [], slotInMs: 0 }
    let ids = due.slice(0, room)
    if (perMinute > 0) {
      const slot = await takeMailSlot(tx, perMinute, [...new Set(due.map((row) => row.lane))])
      if (!('lane' in slot)) return { items: [], slotInMs: slot.waitMs }
      ids = due.filter((row) => row.lane === slot.lane).slice(0, 1)
    }
    const items = await claimWithLease<ClaimedMail>(tx, OUTBOXES.mail, {
      due: 'select unnest($1::bigint[]) as id',
      params: [ids.map((row) => row.id)],
      leaseMs,
      returning: `o.id::text as id, o.uuid::text as uuid, o.kind, o.waitlist_id::text as "waitlistId",
                  coalesce((select w.email::text from public.waitlist w where w.id = o.waitlist_id), o.test_address) as email,
                  o.queued_at as "queuedAt", o.message_domain as "messageDomain", o.attempts as attempt`,
    })
    return { items, slotInMs: 0 }
  })
}

/**
 * When the next pending message of the `open` lanes falls due, in milliseconds from now (undefined:
 * none), so a paused lane's queue never wakes the sender. Through the (priority, run_at) index.
 */
export async function nextMailDueIn(db: Queryable, open: readonly MailLane[]): Promise<number | undefined> {
  if (open.length === 0) return undefined
  const [row] = await db.query<{ ms: number | null }>(
    `select (extract(epoch from min(run_at) - now()) * 1000)::float8 as ms from private.mail_outbox
      where status = 'pending' and priority = any($1::smallint[])`,
    [open],
  )
  return row?.ms == null ? undefined : Math.max(0, row.ms)
}

/**
 * Records an accepted message, fenced by the attempt (a stale attempt whose lease ran out changes
 * nothing); an invitation's acceptance is the invitation.sent webhook event, in the same transaction.
 * A test send's address is forgotten once it is sent.
 */
export async function recordSent(db: Database, mail: ClaimedMail): Promise<boolean> {
  return db.transaction(async (tx) => {
    const sent = await markDone(tx, OUTBOXES.mail, mail, ', test_address = null')
    if (sent && mail.kind === 'invitation' && mail.waitlistId)
      await queueEvent(tx, mail.waitlistId, 'invitation.sent')
    return sent
  })
}

/**
 * A 5xx for this address: the message is `bounced` (the answer stored masked) and so is the entry
 * (entry-status.ts: no more mail, entry.bounced), fenced by the attempt as recordSent is.
 */
export async function recordBounced(db: Database, mail: ClaimedMail, error: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { affected } = await tx.run(
      `update private.mail_outbox set status = 'bounced', last_error = $3, sent_at = now()
        where id = $1::bigint and attempts = $2 and status = 'pending'`,
      [mail.id, mail.attempt, maskEmails(error)],
    )
    if (affected === 0) return false
    // A test send names no entry: its address was never on the list.
    if (mail.waitlistId)
      await changeStatus(tx, 'bounce', [mail.waitlistId], { detail: `refused at send: ${maskEmails(error)}` })
    return true
  })
}
