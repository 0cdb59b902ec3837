import { maskEmails } from '../../base/log'
import type { Database, Queryable } from '../../db/database'
import { claimWithLease, markDone, OUTBOXES } from '../../outbox/outbox-queries'
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
  /** The first name the greeting uses (the imported one, else the name's first word); null for none. */
  firstName: string | null
  queuedAt: Date
  messageDomain: string
  /** This attempt's number, from 1; it fences the attempt's outcome, as for the webhooks. */
  attempt: number
}

export type MailClaim = { items: ClaimedMail[]; slotInMs: number }

/**
 * Whether the message `o` may go to whom it names now: the one rule, private.may_mail, on the
 * status of its entry (a test's, of the entry listed at its address). The claim and the next-due
 * query both ask it, so a message the claim leaves never wakes the sender.
 */
const MAY_GO = 'private.may_mail(o.kind, private.recipient_status(o.waitlist_id, o.test_address))'

/** The due messages of one lane (priority), oldest first, locked (aliased `o`). */
const dueInLane = (lane: MailLane) => `
  select o.id::text as id, o.priority as lane from private.mail_outbox o
   where o.status = 'pending' and o.priority = ${lane} and o.run_at <= now() and ${MAY_GO}
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
 * mid-send leaves the message due again. A message the rule refuses (MAY_GO) is never claimed.
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
                  (select coalesce(n.given_name, split_part(n.name, ' ', 1)) from private.entry_names n
                    where n.waitlist_id = o.waitlist_id) as "firstName",
                  o.queued_at as "queuedAt", o.message_domain as "messageDomain", o.attempts as attempt`,
    })
    return { items, slotInMs: 0 }
  })
}

/**
 * When the next pending message of the `open` lanes that a claim would take falls due, in
 * milliseconds from now (undefined: none), so neither a paused lane's queue nor a message the rule
 * refuses wakes the sender. Each lane read through the (priority, run_at) index, oldest first, to
 * the first message the rule lets go.
 */
export async function nextMailDueIn(db: Queryable, open: readonly MailLane[]): Promise<number | undefined> {
  if (open.length === 0) return undefined
  const [row] = await db.query<{ ms: number | null }>(
    `select (extract(epoch from min(next.run_at) - now()) * 1000)::float8 as ms
       from unnest($1::smallint[]) as lane(priority)
       cross join lateral (
         select o.run_at from private.mail_outbox o
          where o.status = 'pending' and o.priority = lane.priority and ${MAY_GO}
          order by o.run_at limit 1) next`,
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
 * What the list does with an entry whose address the mail server refused for good, in the same
 * transaction: the waitlist's bounce (server/waitlist/entry-status.ts bounceRefused), given by the
 * assembly, so mail never reaches into the list.
 */
export type AddressRefused = (tx: Queryable, waitlistId: string, detail: string) => Promise<void>

/**
 * A 5xx for this address: the message is `bounced` (the answer stored masked), and the entry is
 * told `refused`, fenced by the attempt as recordSent is.
 */
export async function recordBounced(
  db: Database,
  mail: ClaimedMail,
  error: string,
  refused: AddressRefused,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { affected } = await tx.run(
      `update private.mail_outbox set status = 'bounced', last_error = $3, sent_at = now()
        where id = $1::bigint and attempts = $2 and status = 'pending'`,
      [mail.id, mail.attempt, maskEmails(error)],
    )
    if (affected === 0) return false
    // A test send names no entry: its address was never on the list.
    if (mail.waitlistId) await refused(tx, mail.waitlistId, `refused at send: ${maskEmails(error)}`)
    return true
  })
}
