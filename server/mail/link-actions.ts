import type { Database, Queryable } from '../db/database'
import type { EntryStatus } from '../waitlist/entry-status'
import { queueEvent } from '../waitlist/notifications/outbox-sql'
import { cancelPendingMail } from './queue/mail-queue'

/** What a link's POST found: done now, done before (the POST is idempotent), or no such entry. */
export type LinkOutcome = 'done' | 'already' | 'unsubscribed' | 'not-listed'

/** The entry of an address, locked for this transaction, with its status. */
async function lockEntry(
  tx: Queryable,
  email: string,
): Promise<{ id: string; status: EntryStatus } | undefined> {
  const [row] = await tx.query<{ id: string; status: EntryStatus }>(
    `select w.id::text as id, coalesce(s.status, 'waiting') as status
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where w.email operator(extensions.=) $1::extensions.citext
      for update of w`,
    [email],
  )
  return row
}

/**
 * The entry becomes `unsubscribed` (unless it already is, or complained), every message still
 * queued for it is cancelled, and the entry.unsubscribed event is queued, in the caller's
 * transaction: the one way both the link and a provider's unsubscribe event take. False when it
 * changed nothing.
 */
export async function unsubscribeEntry(tx: Queryable, waitlistId: string): Promise<boolean> {
  const changed = await tx.query(
    `insert into private.entry_status (waitlist_id, status, unsubscribed_at) values ($1::bigint, 'unsubscribed', now())
     on conflict (waitlist_id) do update set status = 'unsubscribed', unsubscribed_at = now(), updated_at = now()
       where private.entry_status.status not in ('unsubscribed', 'complained')
     returning 1`,
    [waitlistId],
  )
  if (changed.length === 0) return false
  await cancelPendingMail(tx, waitlistId)
  await queueEvent(tx, waitlistId, 'entry.unsubscribed')
  return true
}

/** One-click unsubscribe, in one transaction (unsubscribeEntry). Again: nothing changes. */
export function unsubscribe(db: Database, email: string): Promise<LinkOutcome> {
  return db.transaction(async (tx) => {
    const entry = await lockEntry(tx, email)
    if (!entry) return 'not-listed'
    return (await unsubscribeEntry(tx, entry.id)) ? 'done' : 'already'
  })
}

/**
 * Confirmation (double opt-in): an `unconfirmed` entry becomes `waiting`, so `invite` may pick it,
 * and the entry.confirmed event is queued. Any other status is left as it is.
 */
export function confirm(db: Database, email: string): Promise<LinkOutcome> {
  return db.transaction(async (tx) => {
    const entry = await lockEntry(tx, email)
    if (!entry) return 'not-listed'
    if (entry.status === 'unsubscribed' || entry.status === 'complained') return 'unsubscribed'
    if (entry.status !== 'unconfirmed') return 'already'
    await tx.query(
      `update private.entry_status set status = 'waiting', confirmed_at = now(), updated_at = now()
        where waitlist_id = $1::bigint`,
      [entry.id],
    )
    await queueEvent(tx, entry.id, 'entry.confirmed')
    return 'done'
  })
}

/**
 * Whether the address's entry already asked for no more mail (unsubscribed, or complained): a read,
 * for the GET of an unsubscribe link, which says so instead of asking again.
 */
export async function alreadyUnsubscribed(db: Database, email: string): Promise<boolean> {
  const [row] = await db.query<{ done: boolean }>(
    `select exists (
       select 1 from public.waitlist w join private.entry_status s on s.waitlist_id = w.id
        where w.email operator(extensions.=) $1::extensions.citext and s.status in ('unsubscribed', 'complained')
     ) as done`,
    [email],
  )
  return row?.done ?? false
}
