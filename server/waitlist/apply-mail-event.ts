import { createHash } from 'node:crypto'
import { plainLine } from '../../contract/clean-text'
import { maskEmails } from '../base/log'
import type { Database, Queryable } from '../db/database'
import { type MailEvent, outboxUuidOf, type SignatureToken } from '../mail/events/mail-event'
import {
  changeStatus,
  clearSoftBounces,
  countSoftBounce,
  recordEvent,
  type StatusChange,
} from './entry-status'

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

// How long an event id is kept to drop a provider's retries: they retry for hours, at most days.
const REMEMBER_EVENTS = '30 days'

interface Target {
  waitlistId: string
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
    `select w.id::text as "waitlistId", sent.id::text as "messageId"
       from public.waitlist w
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

/** A hard bounce or a complaint changed the entry: send health is judged at once. */
const HEALTH_EVENTS: readonly EventOutcome[] = ['bounced', 'complained']

/** What the event does to the entry (entry-status.ts), and what it did, for the log. */
async function applyTo(tx: Queryable, target: Target, event: MailEvent): Promise<EventOutcome> {
  // The history's words: the provider and what it said, its diagnostic masked as the log masks it
  // and kept as one plain line (a receiving server wrote it: ADR 082).
  const detail = `${event.provider}: ${plainLine(maskEmails(event.detail)).slice(0, 200)}`
  const changed = (change: StatusChange, done: EventOutcome) =>
    changeStatus(tx, change, [target.waitlistId], { detail }).then((ids) =>
      ids.length > 0 ? done : 'unchanged',
    )
  switch (event.type) {
    case 'hard':
      await markMessage(tx, target, 'hard')
      return changed('bounce', 'bounced')
    case 'complaint':
      await markMessage(tx, target, 'complaint')
      return changed('complain', 'complained')
    case 'unsubscribe':
      // The person's own word, as the link's: no bounce is counted.
      return changed('unsubscribe', 'unsubscribed')
    case 'soft':
      await recordEvent(tx, target.waitlistId, 'soft bounce', detail)
      return (await countSoftBounce(tx, target.waitlistId)) ? 'bounced' : 'soft'
    case 'delivered':
      await recordEvent(tx, target.waitlistId, 'delivered', detail)
      await clearSoftBounces(tx, target.waitlistId)
      return 'delivered'
  }
}

/**
 * Applies one provider event in one transaction (ADR 043): a hard bounce makes the entry bounced, a
 * complaint complained, an unsubscribe unsubscribed, a soft bounce is counted (the third in a row
 * bounces), a delivery ends a run of soft bounces. An event about no message we sent (findTarget)
 * adds nothing; an event id seen before changes nothing.
 */
export function applyMailEvent(db: Database, event: MailEvent): Promise<EventOutcome> {
  return db.transaction(async (tx) => {
    const target = await findTarget(tx, event)
    if (!target) return 'not-listed'
    if (!(await firstTime(tx, event))) return 'duplicate'
    return applyTo(tx, target, event)
  })
}

/** Judges send health now (the mail sender's gate, send-health.ts), pausing a lane past its limits. */
export interface HealthCheck {
  openLanes(): Promise<unknown>
}

/**
 * The events of one verified POST, after the token of a signature that leaves them out is found
 * unused (Mailgun's): each applied in its own transaction, then, when one bounced or complained an
 * entry, send health judged at once, so a pause needs no sender's poll to happen. What they did,
 * or `replayed` for a token seen before.
 */
export async function applyMailEvents(
  db: Database,
  events: readonly MailEvent[],
  token: SignatureToken | undefined,
  health?: HealthCheck,
): Promise<EventOutcome[] | 'replayed'> {
  if (token && !(await firstUseOfToken(db, token))) return 'replayed'
  const outcomes: EventOutcome[] = []
  for (const event of events) outcomes.push(await applyMailEvent(db, event))
  if (health && outcomes.some((outcome) => HEALTH_EVENTS.includes(outcome))) await health.openLanes()
  return outcomes
}

/**
 * Records a signature's one-use values, in the database so that every server sharing it knows
 * them, and deletes those whose signatures have expired (the table holds a few minutes of posts).
 * False when any was recorded before: the same signature again, a replay. Each value is hashed
 * with its place in the list, so a row is the same size whatever the provider sent, and a token
 * never matches a signature.
 */
async function firstUseOfToken(db: Database, token: SignatureToken): Promise<boolean> {
  const hashes = token.values.map((value, index) =>
    createHash('sha256').update(`${index}:${value}`).digest('hex'),
  )
  return db.transaction(async (tx) => {
    await tx.run('delete from private.mail_event_tokens where expires_at < now()')
    const { affected } = await tx.run(
      `insert into private.mail_event_tokens (provider, token_hash, expires_at)
       select $1, hash, $3 from unnest($2::text[]) as hash
       on conflict do nothing`,
      [token.provider, hashes, token.expiresAt],
    )
    return affected === hashes.length
  })
}
