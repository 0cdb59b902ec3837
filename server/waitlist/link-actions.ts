import { ENTRY_STATUSES, type EntryStatus } from '../../contract/entry-statuses'
import type { Answers } from '../../contract/signup-questions'
import type { Database, Queryable } from '../db/database'
import { queueEvent } from '../webhooks/webhook-events'
import { recordConfirmation } from './consent/consent-record'
import { liftOnConfirmation } from './consent/suppression'
import { ANSWERS_FIXED, keepAnswers } from './entry-answers'
import { askedForNoMail, changeStatus } from './entry-status'

/** What a link's POST found: done now, done before (the POST is idempotent), or no such entry. */
export type LinkOutcome = 'done' | 'already' | 'unsubscribed' | 'not-listed'

/** The entry of an address, locked for this transaction, with its status and whether its answers are fixed. */
async function lockEntry(
  tx: Queryable,
  email: string,
): Promise<{ id: string; status: EntryStatus; fixed: boolean } | undefined> {
  const [row] = await tx.query<{ id: string; status: EntryStatus; fixed: boolean }>(
    `select w.id::text as id, coalesce(s.status, 'waiting') as status, ${ANSWERS_FIXED} as fixed
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where w.email operator(extensions.=) $1::extensions.citext
      for update of w`,
    [email],
  )
  return row
}

/** One-click unsubscribe, in one transaction (entry-status.ts: mail cancelled, entry.unsubscribed). Again: nothing changes. */
export function unsubscribe(db: Database, email: string): Promise<LinkOutcome> {
  return db.transaction(async (tx) => {
    const entry = await lockEntry(tx, email)
    if (!entry) return 'not-listed'
    return (await changeStatus(tx, 'unsubscribe', [entry.id], { detail: 'by the link' })).length > 0
      ? 'done'
      : 'already'
  })
}

/**
 * Confirmation (double opt-in): an `unconfirmed` entry becomes `waiting`, so `invite` may pick it,
 * and the entry.confirmed event is queued; its consent record keeps the network the confirmation
 * came from (`network`, the client's, cut as the logs cut it). Only here does a mailbox erased
 * before come back into imports (ADR 104): the link reached its owner, where a signup alone may be
 * a stranger's. Any other status is left as it is.
 */
export function confirm(db: Database, email: string, network?: string): Promise<LinkOutcome> {
  return db.transaction(async (tx) => {
    const entry = await lockEntry(tx, email)
    if (!entry) return 'not-listed'
    if (askedForNoMail(entry.status)) return 'unsubscribed'
    if ((await changeStatus(tx, 'confirm', [entry.id], { detail: 'by the link' })).length === 0)
      return 'already'
    await recordConfirmation(tx, entry.id, network)
    await liftOnConfirmation(tx, email, network)
    return 'done'
  })
}

/** Whether the address is on the list at all: a read, for a link's GET, which says so when it is not. */
export async function isListed(db: Database, email: string): Promise<boolean> {
  const [row] = await db.query<{ listed: boolean }>(
    `select exists (select 1 from public.waitlist w where w.email operator(extensions.=) $1::extensions.citext) as listed`,
    [email],
  )
  return row?.listed ?? false
}

/**
 * What an answers POST found besides a link's outcomes: the address not confirmed yet (the
 * confirmation's own POST comes first), or its answers fixed, as it was invited with them.
 */
export type AnswerOutcome = LinkOutcome | 'unconfirmed' | 'fixed'

/**
 * The answers a confirmation link's holder gave to the lab's questions (already checked): kept as
 * given, replacing any earlier ones and whatever an agent proposed, in one transaction, with the
 * `entry.answered` webhook when there are any to keep (the chat hears who, and from where, with
 * SIGNUP_WEBHOOK_DETAILS). Nothing changes for an entry not confirmed yet, one that asked for no
 * more mail (unsubscribed, complained), or one invited already (its answers went to the lab with it).
 */
export function answer(db: Database, email: string, answers: Answers): Promise<AnswerOutcome> {
  return db.transaction(async (tx) => {
    const entry = await lockEntry(tx, email)
    if (!entry) return 'not-listed'
    if (askedForNoMail(entry.status)) return 'unsubscribed'
    if (entry.status === 'unconfirmed') return 'unconfirmed'
    if (entry.fixed) return 'fixed'
    await keepAnswers(tx, entry.id, answers)
    if (Object.keys(answers).length > 0) await queueEvent(tx, entry.id, 'entry.answered')
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
        where w.email operator(extensions.=) $1::extensions.citext and s.status = any($2::text[])
     ) as done`,
    [email, ENTRY_STATUSES.filter(askedForNoMail)],
  )
  return row?.done ?? false
}
