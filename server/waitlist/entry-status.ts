import { ENTRY_STATUSES, type EntryStatus } from '../../contract/entry-statuses'
import type { Queryable } from '../db/database'
import type { MessageKind } from '../mail/messages/compose-message'
import { cancelRefusedMail } from '../mail/queue/mail-queueing'
import { type EntryEvent, queueEvents } from '../webhooks/webhook-events'

/**
 * An entry's status, and the one module that writes it (private.entry_status; no row means
 * `waiting`): every change goes through the table of transitions below, so each one cancels the
 * mail it must and sends the webhook the docs promise, whichever door it came through. The
 * statuses and their order are contract/entry-statuses.ts's.
 *
 * Who may be mailed is one rule beside this table, in SQL because every question is asked by SQL:
 * private.may_mail(kind, status) (supabase/migrations/20261202000000_one_rule_per_question.sql).
 * Nothing of any kind goes to a bounced, unsubscribed or complained entry; a confirmation goes only
 * to an unconfirmed one, an invitation only to an invited one, a test anywhere else. The sender's
 * claim and its next-due query, `deliveries --retry`, a test send, the per-mailbox limit and every
 * change below ask it.
 */
/** The statuses `invite` may move to `invited`: waiting ones, and with --resend those already invited (or bounced, when named). */
export function invitable(resend: boolean, named: boolean): EntryStatus[] {
  if (!resend) return ['waiting']
  return named ? ['waiting', 'invited', 'bounced'] : ['waiting', 'invited']
}

/** Why `invite EMAIL` leaves an entry alone, in the owner's words. */
export function whyNotInvited(status: EntryStatus): string {
  switch (status) {
    case 'unconfirmed':
      return (
        'has not confirmed the address yet (CONFIRM_SIGNUPS): following the link makes it waiting, ' +
        'and invite can pick it then (invite --confirm sends the link again)'
      )
    case 'invited':
      return 'is already invited (--resend sends the invitation again)'
    case 'joined':
      return 'has joined the beta already'
    case 'unsubscribed':
      return 'unsubscribed: no mail ever goes to it again'
    case 'bounced':
      return 'bounced: the mail server refused it for good (--resend tries again)'
    case 'complained':
      return 'reported the mail as spam: no mail ever goes to it again'
    case 'waiting':
      return 'is waiting'
  }
}

/** The status of a waitlist row aliased `w` left-joined to entry_status aliased `s`. */
export const STATUS_SQL = `coalesce(s.status, 'waiting')`

/** What can happen to an entry: each moves it to one status, from the statuses listed. */
export type StatusChange = 'confirm' | 'invite' | 'join' | 'unsubscribe' | 'bounce' | 'complain'

interface Transition {
  /** The statuses it applies to; an entry in any other is left as it is. */
  from: readonly EntryStatus[]
  to: EntryStatus
  /** The date it stamps (a complaint is an unsubscribe for good: its date is unsubscribed_at). */
  stamp: 'confirmed_at' | 'invited_at' | 'joined_at' | 'unsubscribed_at' | 'bounced_at'
  /** What the entry's history calls it (private.entry_events, `show`). */
  event: string
  /**
   * Pending mail of this kind it cancels, beside what private.may_mail refuses for `to` (which
   * every change cancels): a new invitation replaces the entry's pending one.
   */
  replaces?: MessageKind
  /** The webhook event it sends (invitation.sent is sent when the message leaves, not here). */
  webhook?: EntryEvent
}

const ALL = ENTRY_STATUSES
const except = (...statuses: EntryStatus[]) => ALL.filter((status) => !statuses.includes(status))

/**
 * Every status change, as a table (listmonk's RecordBounce, made one row per event): a new status
 * or a new way in is a row here, and every caller gets its mail cancelled (what the rule no longer
 * allows) and its webhook sent.
 */
export const TRANSITIONS: Readonly<Record<StatusChange, Transition>> = {
  // The link followed (double opt-in): invite may pick the entry from now on.
  confirm: {
    from: ['unconfirmed'],
    to: 'waiting',
    stamp: 'confirmed_at',
    event: 'confirmed',
    webhook: 'entry.confirmed',
  },
  // `invite` (invitable() narrows who): the invitation is queued beside the change.
  invite: {
    from: ['waiting', 'invited', 'bounced'],
    to: 'invited',
    stamp: 'invited_at',
    event: 'invited',
    replaces: 'invitation',
  },
  // The beta product redeemed the invite code (redeem_invite): the first redeem, once; a bounced
  // invitation whose code came back anyway (a forwarded message) joins too.
  join: {
    from: ['invited', 'bounced'],
    to: 'joined',
    stamp: 'joined_at',
    event: 'joined',
    webhook: 'entry.joined',
  },
  // The link's one click, or the provider's word that the person unsubscribed there.
  unsubscribe: {
    from: except('unsubscribed', 'complained'),
    to: 'unsubscribed',
    stamp: 'unsubscribed_at',
    event: 'unsubscribed',
    webhook: 'entry.unsubscribed',
  },
  // A 5xx at send time, a provider's hard bounce, the third soft bounce in a row.
  bounce: {
    from: except('bounced', 'unsubscribed', 'complained'),
    to: 'bounced',
    stamp: 'bounced_at',
    event: 'bounced',
    webhook: 'entry.bounced',
  },
  // A spam report: never mailed again.
  complain: {
    from: except('complained'),
    to: 'complained',
    stamp: 'unsubscribed_at',
    event: 'complained',
    webhook: 'entry.complained',
  },
}

/**
 * Whether the entry asked for no more mail (it unsubscribed, or complained): the statuses an
 * unsubscribe leaves as they are. A link's POST then changes nothing of it, and says so.
 */
export const askedForNoMail = (status: EntryStatus): boolean => !TRANSITIONS.unsubscribe.from.includes(status)

/** Who may change, and what the history says of it: the caller's narrower `from`, and a detail. */
export interface ChangeOptions {
  /** Of the transition's `from`, only these (invite without --resend: only `waiting`). */
  only?: readonly EntryStatus[]
  /** Said beside the change in the entry's history: how it came (a link, a provider, a batch). */
  detail?: string
}

/**
 * Applies one change to the entries `ids`, in the caller's transaction: in one statement, each
 * entry whose status (under its row's lock) is one of the transition's `from` (or `only`, a
 * narrower list the caller gives) moves to its status with its date and its history gains the
 * event; then mail cancels what the rule no longer allows (and what the change replaces), and the
 * webhook event is queued for each. Returns the entries that changed.
 */
export async function changeStatus(
  tx: Queryable,
  change: StatusChange,
  ids: readonly string[],
  { only, detail }: ChangeOptions = {},
): Promise<string[]> {
  if (ids.length === 0) return []
  const { from, to, stamp, event, replaces, webhook } = TRANSITIONS[change]
  const allowed = only ? from.filter((status) => only.includes(status)) : from
  const rows = await tx.query<{ id: string }>(
    `with changed as (
       insert into private.entry_status as s (waitlist_id, status, ${stamp})
       select t.id, $2, now() from unnest($1::bigint[]) as t(id)
        where coalesce((select e.status from private.entry_status e where e.waitlist_id = t.id), 'waiting') = any($3::text[])
       on conflict (waitlist_id) do update set status = excluded.status, ${stamp} = now(), updated_at = now()
        where s.status = any($3::text[])
       returning s.waitlist_id
     ),
     told as (
       insert into private.entry_events (waitlist_id, event, detail)
       select waitlist_id, $4, left($5, 300) from changed
     )
     select waitlist_id::text as id from changed`,
    [ids, to, allowed, event, detail ?? null],
  )
  const changed = rows.map((row) => row.id)
  await cancelRefusedMail(tx, changed, to, replaces)
  if (webhook) await queueEvents(tx, changed, webhook)
  return changed
}

/**
 * The mail server refused the entry's address for good at send time (a 5xx): the entry is bounced,
 * as a provider's hard bounce bounces it. Given to the mail sender by the assembly.
 */
export async function bounceRefused(tx: Queryable, waitlistId: string, detail: string): Promise<void> {
  await changeStatus(tx, 'bounce', [waitlistId], { detail })
}

/**
 * An event in the entry's history that changes no status (a soft bounce, a delivery, a provider's
 * word about a message), for `show`. The detail is the caller's, already without any address.
 */
export async function recordEvent(tx: Queryable, id: string, event: string, detail?: string): Promise<void> {
  await tx.run(
    'insert into private.entry_events (waitlist_id, event, detail) values ($1::bigint, $2, left($3, 300))',
    [id, event, detail ?? null],
  )
}

/** Soft bounces in a row that make an entry bounced. */
export const SOFT_BOUNCES_TO_BOUNCED = 3

/** One more soft bounce in a row (reported by the provider); the third bounces the entry. True when it did. */
export async function countSoftBounce(tx: Queryable, id: string): Promise<boolean> {
  const [row] = await tx.query<{ n: number }>(
    `insert into private.entry_status (waitlist_id, status, soft_bounces) values ($1::bigint, 'waiting', 1)
     on conflict (waitlist_id) do update set soft_bounces = private.entry_status.soft_bounces + 1
     returning soft_bounces as n`,
    [id],
  )
  if ((row?.n ?? 0) < SOFT_BOUNCES_TO_BOUNCED) return false
  const detail = `${SOFT_BOUNCES_TO_BOUNCED} soft bounces in a row`
  return (await changeStatus(tx, 'bounce', [id], { detail })).length > 0
}

/** A delivery the provider reports: the soft bounces before it are no longer in a row. */
export async function clearSoftBounces(tx: Queryable, id: string): Promise<void> {
  await tx.run(
    'update private.entry_status set soft_bounces = 0 where waitlist_id = $1::bigint and soft_bounces > 0',
    [id],
  )
}

/** The statuses' dates, which an import restores from its file. */
const DATES = ['confirmed_at', 'invited_at', 'unsubscribed_at', 'bounced_at', 'joined_at'] as const

/** A staged row with a status of its own: anything but waiting without dates (no row is waiting). */
const OWN_STATUS = `(staged.status <> 'waiting' or coalesce(${DATES.map((date) => `staged.${date}`).join(', ')}) is not null)`

/**
 * The statuses of the entries an import added, restored as its file has them, status and dates,
 * as a backup restored is (ADR 039): no transition, no history, no webhook, and no mail to cancel
 * (the entry is new). `from` joins each staged row (`staged`, of pg_temp.import_rows) to the entry
 * it added (`added`). An entry the list held before moves on through its transitions instead
 * (moveImported). The statement, for an import that finds its added rows only by its insert's
 * RETURNING, to run as one step (a WITH) of that insert; restoreImported runs it alone.
 */
export const restoredStatusesSql = (from: string): string => `
  insert into private.entry_status (waitlist_id, status, ${DATES.join(', ')})
  select added.id, staged.status, ${DATES.map((date) => `staged.${date}`).join(', ')} from ${from}
   where ${OWN_STATUS}`

/** The statuses of the entries an import added (restoredStatusesSql), in the import's transaction. */
export async function restoreImported(tx: Queryable, from: string): Promise<void> {
  await tx.run(restoredStatusesSql(from))
}

/**
 * `import`'s moves (ADR 039), through the table: each entry listed before the import moves on to
 * the status its line gives, by that status's row, from any status before it in the one order
 * (contract/entry-statuses.ts), never back. Its history says "imported", the mail the rule no
 * longer allows is cancelled as for any change, and no webhook is sent: moving a list is not news.
 * The dates it lacks, the file gives; those it has, it keeps. A list restored from a backup or moved
 * to another database therefore never mails an address that unsubscribed, nor invites anyone twice.
 * Reads the import's staging table (pg_temp.import_rows, admin/import-staging.ts), in the import's
 * transaction. Returns how many listed entries moved on to a status other than waiting.
 */
export async function moveImported(tx: Queryable): Promise<number> {
  let moved = 0
  for (const { to } of Object.values(TRANSITIONS)) {
    const before = ENTRY_STATUSES.slice(0, ENTRY_STATUSES.indexOf(to))
    const rows = await tx.query<{ id: string }>(
      `with moved as (
         insert into private.entry_status as current (waitlist_id, status, ${DATES.join(', ')})
         select listed.id, staged.status, ${DATES.map((date) => `staged.${date}`).join(', ')}
           from pg_temp.import_rows staged
           join public.waitlist listed on listed.email operator(extensions.=) staged.email::extensions.citext
          where staged.status = $1
            and coalesce((select e.status from private.entry_status e where e.waitlist_id = listed.id), 'waiting') = any($2::text[])
         on conflict (waitlist_id) do update
           set status = excluded.status, updated_at = now(),
               ${DATES.map((date) => `${date} = coalesce(current.${date}, excluded.${date})`).join(', ')}
           where current.status = any($2::text[])
         returning current.waitlist_id
       ),
       told as (
         insert into private.entry_events (waitlist_id, event, detail)
         select waitlist_id, 'imported', 'the file says ' || $1 from moved
       )
       select waitlist_id::text as id from moved`,
      [to, before],
    )
    const ids = rows.map((row) => row.id)
    await cancelRefusedMail(tx, ids, to)
    if (to !== 'waiting') moved += ids.length
  }
  return moved
}
