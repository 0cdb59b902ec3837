import type { Queryable } from '../db/database'
import { type EntryEvent, queueEvents } from '../webhooks/webhook-events'

/**
 * An entry's status, and the one module that writes it (private.entry_status; no row means
 * `waiting`): every change goes through the table of transitions below, so each one cancels the
 * mail it must and sends the webhook the docs promise, whichever door it came through.
 *
 *   unconfirmed  signed up with CONFIRM_SIGNUPS on, link not yet followed: never invited
 *   waiting      on the list, may be invited
 *   invited      an invitation is queued or sent: not invited again without --resend
 *   joined       the beta product redeemed the invite code (redeem_invite): in the beta
 *   unsubscribed asked for no more mail: never mailed again, whatever the command
 *   bounced      the SMTP server or the provider refused the address for good (a 5xx, a hard bounce, three
 *                soft bounces in a row): not mailed again without --resend
 *   complained   reported the mail as spam: like unsubscribed, never mailed again (ADR 043)
 */
export const ENTRY_STATUSES = [
  'unconfirmed',
  'waiting',
  'invited',
  'joined',
  'unsubscribed',
  'bounced',
  'complained',
] as const
export type EntryStatus = (typeof ENTRY_STATUSES)[number]

export const isEntryStatus = (value: string): value is EntryStatus =>
  (ENTRY_STATUSES as readonly string[]).includes(value)

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
  /** The entry's pending mail it cancels: all of it (no more mail), its invitations (one replaces them), or none. */
  cancels: 'all' | 'invitations' | 'none'
  /** The webhook event it sends (invitation.sent is sent when the message leaves, not here). */
  webhook?: EntryEvent
}

const ALL = ENTRY_STATUSES
const except = (...statuses: EntryStatus[]) => ALL.filter((status) => !statuses.includes(status))

/**
 * Every status change, as a table (listmonk's RecordBounce, made one row per event): a new status
 * or a new way in is a row here, and every caller gets its mail cancelled and its webhook sent.
 */
export const TRANSITIONS: Readonly<Record<StatusChange, Transition>> = {
  // The link followed (double opt-in): invite may pick the entry from now on.
  confirm: {
    from: ['unconfirmed'],
    to: 'waiting',
    stamp: 'confirmed_at',
    event: 'confirmed',
    cancels: 'none',
    webhook: 'entry.confirmed',
  },
  // `invite` (invitable() narrows who): the invitation is queued beside the change.
  invite: {
    from: ['waiting', 'invited', 'bounced'],
    to: 'invited',
    stamp: 'invited_at',
    event: 'invited',
    cancels: 'invitations',
  },
  // The beta product redeemed the invite code (redeem_invite): the first redeem, once; a bounced
  // invitation whose code came back anyway (a forwarded message) joins too.
  join: {
    from: ['invited', 'bounced'],
    to: 'joined',
    stamp: 'joined_at',
    event: 'joined',
    cancels: 'invitations',
    webhook: 'entry.joined',
  },
  // The link's one click, or the provider's word that the person unsubscribed there.
  unsubscribe: {
    from: except('unsubscribed', 'complained'),
    to: 'unsubscribed',
    stamp: 'unsubscribed_at',
    event: 'unsubscribed',
    cancels: 'all',
    webhook: 'entry.unsubscribed',
  },
  // A 5xx at send time, a provider's hard bounce, the third soft bounce in a row.
  bounce: {
    from: except('bounced', 'unsubscribed', 'complained'),
    to: 'bounced',
    stamp: 'bounced_at',
    event: 'bounced',
    cancels: 'all',
    webhook: 'entry.bounced',
  },
  // A spam report: never mailed again.
  complain: {
    from: except('complained'),
    to: 'complained',
    stamp: 'unsubscribed_at',
    event: 'complained',
    cancels: 'all',
    webhook: 'entry.complained',
  },
}

const CANCELS = {
  all: "o.status = 'pending'",
  invitations: "o.status = 'pending' and o.kind = 'invitation'",
  none: 'false',
} as const

/** Who may change, and what the history says of it: the caller's narrower `from`, and a detail. */
export interface ChangeOptions {
  /** Of the transition's `from`, only these (invite without --resend: only `waiting`). */
  only?: readonly EntryStatus[]
  /** Said beside the change in the entry's history: how it came (a link, a provider, a batch). */
  detail?: string
}

/**
 * Applies one change to the entries `ids`, in the caller's transaction, in one statement: each
 * entry whose status (under its row's lock) is one of the transition's `from` (or `only`, a
 * narrower list the caller gives) moves to its status with its date, its pending mail is cancelled
 * and its history gains the event; then the webhook event is queued for each. Returns the entries
 * that changed.
 */
export async function changeStatus(
  tx: Queryable,
  change: StatusChange,
  ids: readonly string[],
  { only, detail }: ChangeOptions = {},
): Promise<string[]> {
  if (ids.length === 0) return []
  const { from, to, stamp, event, cancels, webhook } = TRANSITIONS[change]
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
     cancelled as (
       update private.mail_outbox o set status = 'cancelled' from changed
        where o.waitlist_id = changed.waitlist_id and ${CANCELS[cancels]}
     ),
     told as (
       insert into private.entry_events (waitlist_id, event, detail)
       select waitlist_id, $4, left($5, 300) from changed
     )
     select waitlist_id::text as id from changed`,
    [ids, to, allowed, event, detail ?? null],
  )
  const changed = rows.map((row) => row.id)
  if (webhook) await queueEvents(tx, changed, webhook)
  return changed
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

/**
 * For confirmations.ts's one statement: stamps another confirmation of each unconfirmed entry in
 * the CTE `due` (id, box: its mailbox key) (its time, restarting CONFIRM_EXPIRE_DAYS, its count and
 * its mailbox, which the per-mailbox limit reads), returning waitlist_id.
 */
export const stampConfirmationSql = (due: string) => `
  update private.entry_status s
     set confirm_sent_at = now(), confirmations = s.confirmations + 1, mailbox = ${due}.box, updated_at = now()
    from ${due}
   where s.waitlist_id = ${due}.id and s.status = 'unconfirmed'
  returning s.waitlist_id`

/**
 * `import`'s statuses (ADR 039), restored from its staging table (pg_temp.import_rows, filled by
 * server/waitlist/admin/import-staging.ts) in the import's one transaction, in bulk: an entry the
 * import adds takes the file's status and dates as they are; an entry already listed only moves on,
 * never back. A list restored from a backup or moved to another database therefore never mails an
 * address that unsubscribed, nor invites anyone twice.
 */

const DATES = ['confirmed_at', 'invited_at', 'unsubscribed_at', 'bounced_at', 'joined_at']
const COLUMNS = ['status', ...DATES].join(', ')
const staged = (names: string) =>
  names
    .split(', ')
    .map((name) => `staged.${name}`)
    .join(', ')

/** A staged row with a status of its own: anything but waiting without dates (no row is waiting). */
const OWN_STATUS = `(staged.status <> 'waiting' or coalesce(${staged(DATES.join(', '))}) is not null)`

/**
 * The statuses of the entries an import added, from `from`: each staged row (`staged`) beside the
 * entry the import gave it (`added`). They take the file's status and dates as they are.
 */
export const addedStatusesSql = (from: string) => `
  insert into private.entry_status (waitlist_id, ${COLUMNS})
  select added.id, ${staged(COLUMNS)} from ${from}
   where ${OWN_STATUS}`

// Further along is higher: an import may move an entry on, never back.
const RANK = `array['unconfirmed', 'waiting', 'invited', 'joined', 'bounced', 'unsubscribed', 'complained']`

/**
 * Moves the entries that were listed before the import on to the file's status when it is further
 * along (by RANK), keeping the dates they have; mail still queued to an entry now unsubscribed or
 * bounced is cancelled. The entries the import added hold the file's status already, so they are
 * left as they are. Returns how many listed entries moved on to invited, bounced or unsubscribed.
 */
export async function raiseListedStatuses(tx: Queryable): Promise<number> {
  const [row] = await tx.query<{ raised: number }>(
    `with written as (
       insert into private.entry_status as current (waitlist_id, ${COLUMNS})
       select listed.id, ${staged(COLUMNS)}
         from pg_temp.import_rows staged
         join public.waitlist listed on listed.email operator(extensions.=) staged.email::extensions.citext
        where ${OWN_STATUS} and staged.status <> 'unconfirmed'
       on conflict (waitlist_id) do update
         set status = excluded.status, updated_at = now(),
             ${DATES.map((date) => `${date} = coalesce(current.${date}, excluded.${date})`).join(', ')}
         where array_position(${RANK}, excluded.status) > array_position(${RANK}, current.status)
       returning waitlist_id, status
     ),
     cancelled as (
       update private.mail_outbox queued set status = 'cancelled'
         from written
        where queued.waitlist_id = written.waitlist_id and queued.status = 'pending'
          and written.status in ('unsubscribed', 'bounced', 'complained')
     )
     select count(*) filter (where status <> 'waiting')::int as raised from written`,
  )
  return row?.raised ?? 0
}
