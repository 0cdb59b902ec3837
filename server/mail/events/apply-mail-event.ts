import { createHash } from 'node:crypto'
import type { Database, Queryable } from '../../db/database'
import { queueEvent } from '../../waitlist/notifications/outbox-sql'
import { unsubscribeEntry } from '../link-actions'
import { cancelPendingMail } from '../queue/mail-queue'
import type { SignatureToken } from './mail-event'
import { type MailEvent, outboxUuidOf } from './mail-event'

/** What one event did: nothing for an address the lab never mailed, or an event seen before. */
export type EventOutcome =
  | 'not-listed'
  | 'duplicate'
  | 'bounced'
  | 'complained'
  | 'unsubscribed'
  | 'soft'
  | 'delivered'
  | 'unchanged'

// Soft bounces in a row that make an entry bounced.
const SOFT_BOUNCES_TO_BOUNCED = 3
// How long an event id is kept to drop a provider's retries: they retry for hours, at most days.
const REMEMBER_EVENTS = '30 days'

interface Target {
  waitlistId: string
  softBounces: number
  /** The sent message the event is about: the one its Message-ID names, else the latest sent. */
  messageId: string
}

// How long after a message an event naming only its address is still taken to be about it.
const MAILED_WITHIN = '30 days'

/**
 * The entry an event is about, locked for this transaction, and the message we sent it that the
 * event answers: the one whose Message-ID the provider returns (ours, <uuid@domain>), else the
 * latest sent to that address within MAILED_WITHIN. No such message, no target: an event changes
 * only an address the lab mailed. An event that carries no address is found by its Message-ID.
 */
async function findTarget(tx: Queryable, event: MailEvent): Promise<Target | undefined> {
  const uuid = outboxUuidOf(event.messageId) ?? null
  const [row] = await tx.query<Target>(
    `select w.id::text as "waitlistId", coalesce(s.soft_bounces, 0)::int as "softBounces",
            sent.id::text as "messageId"
       from public.waitlist w
       left join private.entry_status s on s.waitlist_id = w.id
       cross join lateral (
         select o.id from private.mail_outbox o
          where o.waitlist_id = w.id and o.sent_at is not null
            and (o.uuid = $2::uuid or o.sent_at > now() - interval '${MAILED_WITHIN}')
          order by (o.uuid = $2::uuid) is true desc, o.sent_at desc limit 1) sent
      where ($1 <> '' and w.email operator(extensions.=) $1::extensions.citext)
         or ($1 = '' and w.id = (select waitlist_id from private.mail_outbox where uuid = $2::uuid))
      for update of w`,
    [event.email.trim(), uuid],
  )
  return row
}

/**
 * Remembers the provider's event id (hashed: fixed size whatever the provider sends) and drops ids
 * past their time; false when it was already there, so the event was applied before.
 */
async function firstTime(tx: Queryable, event: MailEvent): Promise<boolean> {
  await tx.run(`delete from private.mail_event_ids where received_at < now() - interval '${REMEMBER_EVENTS}'`)
  const id = createHash('sha256').update(event.eventId).digest('hex')
  const { affected } = await tx.run(
    `insert into private.mail_event_ids (provider, event_id) values ($1, $2) on conflict do nothing`,
    [event.provider, id],
  )
  return affected > 0
}

/** What the provider said of the message, for send health (send-health.ts). */
async function markMessage(tx: Queryable, target: Target, outcome: 'hard' | 'complaint'): Promise<void> {
  await tx.run(
    `update private.mail_outbox set outcome = $2 where id = $1::bigint and outcome is distinct from 'complaint'`,
    [target.messageId, outcome],
  )
}

/** The entry becomes `bounced` (unless it unsubscribed or complained): no more mail, entry.bounced. */
async function markBounced(tx: Queryable, target: Target): Promise<EventOutcome> {
  const changed = await tx.query(
    `insert into private.entry_status (waitlist_id, status, bounced_at) values ($1::bigint, 'bounced', now())
     on conflict (waitlist_id) do update set status = 'bounced', bounced_at = now(), updated_at = now()
       where private.entry_status.status not in ('bounced', 'unsubscribed', 'complained')
     returning 1`,
    [target.waitlistId],
  )
  if (changed.length === 0) return 'unchanged'
  await cancelPendingMail(tx, target.waitlistId)
  await queueEvent(tx, target.waitlistId, 'entry.bounced')
  return 'bounced'
}

/** The entry becomes `complained`, for good: treated as unsubscribed (its date in unsubscribed_at). */
async function markComplained(tx: Queryable, target: Target): Promise<EventOutcome> {
  await markMessage(tx, target, 'complaint')
  const changed = await tx.query(
    `insert into private.entry_status (waitlist_id, status, unsubscribed_at) values ($1::bigint, 'complained', now())
     on conflict (waitlist_id) do update set status = 'complained', unsubscribed_at = now(), updated_at = now()
       where private.entry_status.status <> 'complained'
     returning 1`,
    [target.waitlistId],
  )
  if (changed.length === 0) return 'unchanged'
  await cancelPendingMail(tx, target.waitlistId)
  await queueEvent(tx, target.waitlistId, 'entry.complained')
  return 'complained'
}

/** One more soft bounce in a row; the third makes the entry bounced. */
async function countSoftBounce(tx: Queryable, target: Target): Promise<EventOutcome> {
  await tx.run(
    `insert into private.entry_status (waitlist_id, status, soft_bounces) values ($1::bigint, 'waiting', 1)
     on conflict (waitlist_id) do update set soft_bounces = private.entry_status.soft_bounces + 1`,
    [target.waitlistId],
  )
  if (target.softBounces + 1 >= SOFT_BOUNCES_TO_BOUNCED) return markBounced(tx, target)
  return 'soft'
}

/**
 * Applies one provider event in one transaction (ADR 043): a hard bounce makes the entry bounced, a
 * complaint complained, an unsubscribe unsubscribed (as the link does: no bounce is counted), a
 * soft bounce is counted, a delivery ends a run of soft bounces. An event about no message we sent
 * (findTarget) adds nothing; an event id seen before changes nothing.
 */
export function applyMailEvent(db: Database, event: MailEvent): Promise<EventOutcome> {
  return db.transaction(async (tx) => {
    const target = await findTarget(tx, event)
    if (!target) return 'not-listed'
    if (!(await firstTime(tx, event))) return 'duplicate'
    switch (event.type) {
      case 'hard':
        await markMessage(tx, target, 'hard')
        return markBounced(tx, target)
      case 'complaint':
        return markComplained(tx, target)
      case 'unsubscribe':
        return (await unsubscribeEntry(tx, target.waitlistId)) ? 'unsubscribed' : 'unchanged'
      case 'soft':
        return countSoftBounce(tx, target)
      case 'delivered':
        await tx.run(
          'update private.entry_status set soft_bounces = 0 where waitlist_id = $1::bigint and soft_bounces > 0',
          [target.waitlistId],
        )
        return 'delivered'
    }
  })
}

/**
 * Records a signature's one-use token, in the database so that every server sharing it knows it,
 * and deletes the tokens whose signatures have expired (the table holds a few minutes of posts).
 * False when the token was recorded before: the same signature again, a replay. The token is
 * hashed, so a row is the same size whatever the provider sent.
 */
export function firstUseOfToken(db: Database, token: SignatureToken): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.run('delete from private.mail_event_tokens where expires_at < now()')
    const { affected } = await tx.run(
      `insert into private.mail_event_tokens (provider, token_hash, expires_at) values ($1, $2, $3)
       on conflict do nothing`,
      [token.provider, createHash('sha256').update(token.token).digest('hex'), token.expiresAt],
    )
    return affected > 0
  })
}
