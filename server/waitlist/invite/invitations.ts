import type { EntryStatus } from '../../../contract/entry-statuses'
import { type Actor, recordAudit } from '../../audit/audit-record'
import type { Database, Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { queueInvitations, queueTest } from '../../mail/queue/mail-queueing'
import { ENTRY_SOURCE } from '../admin/entry-columns'
import { bindParameters, type EntryFilter, filterConditions, isEmptyFilter } from '../admin/entry-filter'
import { type EntrySort, isOldestFirst, OLDEST_FIRST, orderOf } from '../admin/entry-sort'
import { countByStatusAsIs } from '../admin/status-counts'
import { changeStatus, invitable, STATUS_SQL } from '../entry-status'

/** An entry `invite` looks at. */
export interface Candidate {
  waitlistId: string
  email: string
  /** UTC, microseconds, as `export` writes it. */
  createdAt: string
  status: EntryStatus
}

// Two invites at once (the CLI and the studio) must not both pick the same oldest entries.
const INVITE_LOCK_KEY = 7_305_871_114

const CANDIDATE_COLUMNS = `w.id::text as "waitlistId", w.email::text as email,
  ${isoUtc('w.created_at')} as "createdAt",
  ${STATUS_SQL} as status`

/** Each entry beside its status, which it has no row for while waiting (aliases w and s). */
const WITH_STATUSES = 'public.waitlist w left join private.entry_status s on s.waitlist_id = w.id'
/** The list of a database whose statuses' migration is still pending: every entry is waiting. */
const BEFORE_STATUSES = 'public.waitlist w cross join (select null::text as status) s'

/** Where the candidates are read from: the list with its statuses, or one from before them. */
export type EntrySource = typeof WITH_STATUSES | typeof BEFORE_STATUSES

/**
 * The source a dry run reads from a database left as it is (it migrates nothing): none before
 * the list's own migration, the list alone (all waiting) before the statuses'.
 */
export async function entrySourceAsIs(db: Queryable): Promise<EntrySource | undefined> {
  const [row] = await db.query<{ list: string | null; statuses: string | null }>(
    `select to_regclass('public.waitlist')::text as list, to_regclass('private.entry_status')::text as statuses`,
  )
  if (!row?.list) return undefined
  return row.statuses ? WITH_STATUSES : BEFORE_STATUSES
}

/**
 * The first `limit` entries whose status is one of `statuses` and that the owner's filter matches
 * (entry-filter.ts: a source, an answer, a domain…), in `sort`'s order: oldest first, or any order
 * the studio's table shows (entry-sort.ts), so "the next N" are the first N rows the owner sees.
 */
export function firstWith(
  db: Queryable,
  statuses: EntryStatus[],
  limit: number,
  source: EntrySource = WITH_STATUSES,
  filter: EntryFilter = {},
  sort: EntrySort = OLDEST_FIRST,
): Promise<Candidate[]> {
  const params: unknown[] = [statuses, limit]
  if (!isOldestFirst(sort)) return firstSorted(db, params, filter, sort)
  const others = filterConditions({ ...filter, statuses: undefined }, bindParameters(params), ALIASES)
  return db.query<Candidate>(
    `select ${CANDIDATE_COLUMNS}
       from ${source}
      where ${STATUS_SQL} = any($1::text[])${others.map((condition) => ` and ${condition}`).join('')}
      order by w.created_at, w.id
      limit $2`,
    params,
  )
}

/**
 * firstWith in another order than the oldest first: over the studio list's own source and keys
 * (entry-columns.ts, entry-sort.ts), whose names the sort's key is written in. `params` holds the
 * statuses and the limit.
 */
function firstSorted(db: Queryable, params: unknown[], filter: EntryFilter, sort: EntrySort) {
  const others = filterConditions({ ...filter, statuses: undefined }, bindParameters(params))
  return db.query<Candidate>(
    `select waitlist.id::text as "waitlistId", waitlist.email::text as email,
            ${isoUtc('waitlist.created_at')} as "createdAt",
            coalesce(entry_status.status, 'waiting') as status
       from ${ENTRY_SOURCE}
      where coalesce(entry_status.status, 'waiting') = any($1::text[])${others.map((condition) => ` and ${condition}`).join('')}
      order by ${orderOf(sort)}
      limit $2`,
    params,
  )
}

/** The candidates' aliases, as the filter names them. */
const ALIASES = { list: 'w', status: 's' }

/**
 * How many entries the filter matches among those `invite --next` may pick (a preview says so
 * before it shows the first ones). With no filter, from the counts kept by status (status-counts.ts,
 * ADR 115), so a preview never reads the whole list; a filter counts the entries it matches.
 */
export async function countInvitable(
  db: Queryable,
  statuses: EntryStatus[],
  filter: EntryFilter = {},
  source: EntrySource = WITH_STATUSES,
): Promise<number> {
  if (isEmptyFilter(filter) && source === WITH_STATUSES) {
    const counts = await countByStatusAsIs(db)
    return statuses.reduce((sum, status) => sum + counts[status], 0)
  }
  const params: unknown[] = [statuses]
  const others = filterConditions({ ...filter, statuses: undefined }, bindParameters(params), ALIASES)
  const [row] = await db.query<{ n: string }>(
    `select count(*)::text as n from ${source}
      where ${STATUS_SQL} = any($1::text[])${others.map((condition) => ` and ${condition}`).join('')}`,
    params,
  )
  return Number(row?.n ?? 0)
}

/**
 * The statuses `invite --next` picks among: those it may invite (invitable()), narrowed to the
 * filter's own when it names some (`--status invited --resend`: the invited alone, again). A
 * status it may not invite is the caller's to refuse (the CLI says so); here it matches nobody.
 */
export function nextStatuses(resend: boolean, filter: EntryFilter = {}): EntryStatus[] {
  const allowed = invitable(resend, false)
  return filter.statuses ? allowed.filter((status) => filter.statuses?.includes(status)) : allowed
}

/**
 * Whether the database as it is (a dry run migrates nothing) keeps what this filter asks about: a
 * source or an answer needs the migration that brought them, a tag the one that brought the team's
 * marks. Before it, no entry has either, so such a filter matches nobody.
 */
export async function filterReadableAsIs(db: Queryable, filter: EntryFilter): Promise<boolean> {
  const answered = filter.sources !== undefined || filter.answers !== undefined
  const marked = filter.tags !== undefined || filter.notTags !== undefined
  if (!answered && !marked) return true
  const [row] = await db.query<{ answers: string | null; marks: string | null }>(
    `select to_regclass('private.entry_answers')::text as answers, to_regclass('private.entry_marks')::text as marks`,
  )
  return (!answered || Boolean(row?.answers)) && (!marked || Boolean(row?.marks))
}

/**
 * Whether the database as it is keeps every table another order than the oldest first reads
 * (the studio list's, entry-columns.ts): before their migrations, a dry run has nothing to sort by.
 */
export async function sortReadableAsIs(db: Queryable): Promise<boolean> {
  const [row] = await db.query<{ missing: string }>(
    `select count(*) filter (where to_regclass(name) is null)::text as missing
       from unnest(array['private.entry_status', 'private.entry_answers', 'private.entry_marks']) name`,
  )
  return row?.missing === '0'
}

/** The entries of these addresses (any letter case), oldest first; an address not on the list is absent. */
export function entriesOf(
  db: Queryable,
  emails: readonly string[],
  source: EntrySource = WITH_STATUSES,
): Promise<Candidate[]> {
  return db.query<Candidate>(
    `select ${CANDIDATE_COLUMNS}
       from ${source}
      where w.email operator(extensions.=) any($1::text[]::extensions.citext[])
      order by w.id`,
    [emails.map((email) => email.trim())],
  )
}

/**
 * Marks the entries `invited` (those still in one of `allowed` under their lock) and queues one
 * invitation each, in the caller's transaction and in their order, as one batch (the funnel counts
 * it): the outbox is written with the status, so a crash leaves both or neither. The change cancels
 * a re-invited entry's pending invitation first, so --resend sends one message, not two.
 */
async function markInvited(
  tx: Queryable,
  ids: readonly string[],
  allowed: readonly EntryStatus[],
  options: InviteOptions,
): Promise<string[]> {
  if (ids.length === 0) return []
  const [batch] = await tx.query<{ id: string }>(
    'insert into private.invite_batches (invited_by, size, chosen_by) values ($1, 0, left($2, 500)) returning id::text as id',
    [options.by ?? 'cli', options.chosenBy ?? null],
  )
  const batchId = batch?.id as string
  const changed = new Set(
    await changeStatus(tx, 'invite', ids, { only: allowed, detail: `batch ${batchId}` }),
  )
  if (changed.size === 0) return []
  const queued = ids.filter((id) => changed.has(id))
  await tx.run('update private.invite_batches set size = $2 where id = $1::bigint', [batchId, queued.length])
  if (options.actor)
    await recordAudit(tx, options.actor, {
      action: options.resend ? 'resend' : 'invite',
      detail: `batch ${batchId}: ${options.chosenBy ?? ''}`.trim(),
      entries: queued,
    })
  return queueInvitations(tx, queued, batchId, options.messageDomain)
}

export interface InviteOptions {
  resend: boolean
  /** MAIL_FROM's domain: the Message-ID's right part. */
  messageDomain: string
  /** Which tool queued the batch (the funnel's by-batch rows); the CLI by default. */
  by?: 'cli' | 'studio'
  /** How the batch was chosen, in the owner's words (`--next 50 --answer role=Research`). */
  chosenBy?: string
  /** `--next N` takes the first entries this filter matches (entry-filter.ts)… */
  filter?: EntryFilter
  /** …in this order (`--sort`, the studio's table's); oldest first without it. */
  sort?: EntrySort
  /** Who asked, for the record (audit-record.ts); each batch is one line naming its entries. */
  actor?: Actor
}

export interface QueuedInvites {
  queued: Candidate[]
  /** The outbox rows written, one per queued entry: what `--wait` follows. */
  messageIds: string[]
}

/**
 * `invite --next N`: the first N waiting entries (with --resend, invited ones too) that the filter
 * matches, oldest first or in the sort's order, queued as one batch.
 */
export function inviteNext(db: Database, count: number, options: InviteOptions): Promise<QueuedInvites> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [INVITE_LOCK_KEY])
    const allowed = nextStatuses(options.resend, options.filter)
    const queued = await firstWith(tx, allowed, count, WITH_STATUSES, options.filter, options.sort)
    const ids = queued.map((entry) => entry.waitlistId)
    return { queued, messageIds: await markInvited(tx, ids, allowed, options) }
  })
}

export interface NamedInvites extends QueuedInvites {
  /** Listed, but in a status `invite` leaves alone. */
  refused: Candidate[]
  /** Not on the list in any letter case. */
  unknown: string[]
}

/** `invite EMAIL…`: each named address that may be invited, queued; the others said why. */
export function inviteNamed(
  db: Database,
  emails: readonly string[],
  options: InviteOptions,
): Promise<NamedInvites> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [INVITE_LOCK_KEY])
    const entries = await entriesOf(tx, emails)
    const allowed = invitable(options.resend, true)
    const queued = entries.filter((entry) => allowed.includes(entry.status))
    const found = new Set(entries.map((entry) => entry.email.toLowerCase()))
    const ids = queued.map((entry) => entry.waitlistId)
    return {
      queued,
      messageIds: await markInvited(tx, ids, allowed, options),
      refused: entries.filter((entry) => !allowed.includes(entry.status)),
      unknown: emails.filter((email) => !found.has(email.trim().toLowerCase())),
    }
  })
}

/** What became of a test send: queued (its outbox row's id, for `--wait`), or refused and why. */
export type TestSend = { queued: string } | { refused: EntryStatus; reason: string }

/** Why a test send to an address listed with this status was refused: one line, the CLI's and the studio's. */
export function noTestSendReason(address: string, status: EntryStatus): string {
  return (
    `No test sent: ${address} is ${status} on the waitlist, and no mail ever goes to an address that ` +
    'unsubscribed, complained or bounced. Send the test to another address.'
  )
}

/**
 * `invite --test ADDRESS` and the studio's "Send me a test": the invitation, as the next invitee
 * gets it, queued for the running server to send to any address the rule lets a test go to (not
 * one listed as unsubscribed, complained or bounced, in any letter case: the person asked for no
 * mail, or their server refused it, and a test is mail too). Both doors come through here, so
 * neither can skip it. The outbox row names no entry (nothing is added to the list) and is of kind
 * `test`, which the sender composes as an invitation whose links are sealed with the test keys: its
 * unsubscribe link changes nothing and its invite code fails the documented check
 * (messages/link-seals.ts). It takes its turn in the invitations' lane.
 */
export async function queueTestInvitation(db: Queryable, address: string): Promise<TestSend> {
  const sent = await queueTest(db, address)
  if ('id' in sent) return { queued: sent.id }
  const status = sent.refusedBy as EntryStatus
  return { refused: status, reason: noTestSendReason(address, status) }
}
