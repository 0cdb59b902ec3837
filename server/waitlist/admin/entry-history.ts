import type { EntryStatus } from '../../../contract/entry-statuses'
import type { Answers } from '../../../contract/signup-questions'
import { signupQuestions } from '../../../contract/site-config'
import { auditOfEntry } from '../../audit/audit-report'
import { maskEmails } from '../../base/log'
import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'
import { type ConsentRecord, consentOf } from '../consent/consent-record'

/** One thing that happened to an entry, as `show` and the studio's entry panel tell it. */
export interface HistoryItem {
  /** UTC, microseconds. */
  at: string
  /** signed up, confirmed, invited, joined, unsubscribed, bounced, complained, soft bounce, delivered, or a message's. */
  event: string
  detail?: string
  /** A message's: its kind (invitation, confirmation) and what became of it. */
  kind?: string
  outcome?: string
  /** Who did it, from the record (audit-report.ts): a team member, or `cli:` and the OS user. */
  by?: string
}

/** One entry as the owner would ask about it: `show EMAIL --json` prints this, the studio's panel shows it. */
export interface EntryHistory {
  email: string
  /** The person's name (private.entry_names), null for none. */
  name: string | null
  status: EntryStatus
  source: string | null
  /** The person's own answers: what filters, export and the funnel read. */
  answers: Answers
  /** An agent's answers, held until the person keeps them on the confirmation page (ADR 084). */
  proposed: Answers
  /** What an import brought that has no field of its own, header → value (private.entry_details). */
  details: Record<string, unknown>
  /** The team's tags, alphabetical (entry-marks.ts), which the person's own copy holds too (ADR 117). */
  tags: string[]
  /** The team's note, null for none. */
  note: string | null
  /** Who agreed to what, when, through which door and which agent (ADR 096); null from before. */
  consent: ConsentRecord | null
  history: HistoryItem[]
}

interface EntryRow {
  id: string
  email: string
  name: string | null
  details: Record<string, unknown> | null
  status: EntryStatus
  source: string | null
  createdAt: string
  answers: Answers | null
  proposed: Answers | null
  tags: string[] | null
  note: string | null
  dates: Record<string, string | null>
}

// A status's date on its row, for a change made before the history was kept (or by an import):
// shown, said to be a date only, when the history has no event for it.
const DATE_EVENTS = {
  confirmed_at: 'confirmed',
  invited_at: 'invited',
  joined_at: 'joined',
  unsubscribed_at: 'unsubscribed',
  bounced_at: 'bounced',
} as const

async function entryRow(db: Queryable, email: string): Promise<EntryRow | undefined> {
  const dates = Object.keys(DATE_EVENTS)
    .map((column) => `'${column}', ${isoUtc(`s.${column}`)}`)
    .join(', ')
  const [row] = await db.query<EntryRow>(
    `select w.id::text as id, w.email::text as email, n.name, d.details,
            coalesce(s.status, 'waiting') as status, w.source,
            ${isoUtc('w.created_at')} as "createdAt", a.answers, p.answers as proposed,
            m.tags, m.note, json_build_object(${dates}) as dates
       from public.waitlist w
       left join private.entry_status s on s.waitlist_id = w.id
       left join private.entry_answers a on a.waitlist_id = w.id
       left join private.proposed_answers p on p.waitlist_id = w.id
       left join private.entry_marks m on m.waitlist_id = w.id
       left join private.entry_names n on n.waitlist_id = w.id
       left join private.entry_details d on d.waitlist_id = w.id
      where w.email operator(extensions.=) $1::extensions.citext`,
    [email.trim()],
  )
  return row
}

/** The entry's status changes and provider events (entry-status.ts keeps them), oldest first. */
function events(db: Queryable, id: string): Promise<HistoryItem[]> {
  return db.query<HistoryItem>(
    `select ${isoUtc('at')} as at, event, detail from private.entry_events
      where waitlist_id = $1::bigint order by id`,
    [id],
  )
}

/** Each message to the entry: when it was queued, and when and how it left (or did not). */
async function messages(db: Queryable, id: string): Promise<HistoryItem[]> {
  const rows = await db.query<{
    at: string
    kind: string
    status: string
    outcome: string | null
    error: string | null
    sentAt: string | null
  }>(
    `select ${isoUtc('queued_at')} as at, kind, status, outcome, last_error as error, ${isoUtc('sent_at')} as "sentAt"
       from private.mail_outbox where waitlist_id = $1::bigint order by id`,
    [id],
  )
  return rows.map((row) => {
    const outcome = row.outcome ? `${row.status}, then ${row.outcome}` : row.status
    const item: HistoryItem = { at: row.at, event: 'message', kind: row.kind, outcome }
    const detail = [row.sentAt && `left at ${row.sentAt}`, row.error && maskEmails(row.error)].filter(Boolean)
    if (detail.length > 0) item.detail = detail.join('; ')
    return item
  })
}

/**
 * The entry with this address (any letter case), its source, its answers kept and proposed, and its history oldest
 * first: the signup, each status change with how it came, each provider event, each message. No
 * address other than its own appears: details are masked as the log masks them. For the team, the
 * history also says who did what; for the person's own page (`person`), it does not (their copy
 * holds the team's marks, ADR 117, but not the team's own members).
 */
export async function entryHistory(
  db: Queryable,
  email: string,
  view: 'team' | 'person' = 'team',
): Promise<EntryHistory | undefined> {
  const row = await entryRow(db, email)
  if (!row) return undefined
  const signedUp: HistoryItem = { at: row.createdAt, event: 'signed up' }
  if (row.source) signedUp.detail = `from ${row.source}`
  const told = await events(db, row.id)
  const dated = Object.entries(DATE_EVENTS).flatMap(([column, event]) => {
    const at = row.dates[column]
    return at && !told.some((item) => item.event === event) ? [{ at, event, detail: 'date only' }] : []
  })
  const byWhom = view === 'team' ? await byWhomOf(db, row.id, told) : []
  const history = [signedUp, ...told, ...dated, ...(await messages(db, row.id)), ...byWhom].sort((a, b) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : 0,
  )
  return {
    email: row.email,
    name: row.name,
    status: row.status,
    source: row.source,
    answers: inQuestionOrder(row.answers),
    proposed: inQuestionOrder(row.proposed),
    details: row.details ?? {},
    tags: row.tags ?? [],
    note: row.note,
    consent: await consentOf(db, row.id),
    history,
  }
}

/** The event an action of the record writes in the entry's history, which then names who did it. */
const MOVES: Readonly<Record<string, string>> = {
  invite: 'invited',
  resend: 'invited',
  tag: 'tagged',
  untag: 'untagged',
  note: 'note written',
  'note cleared': 'note cleared',
}

/**
 * Who did what to the entry, from the record (audit-report.ts): an event the same change wrote (the
 * same transaction, so the same instant) gains `by`; any other line (a tag, a note) is an item of
 * its own. Gives those other items.
 */
async function byWhomOf(db: Queryable, id: string, told: HistoryItem[]): Promise<HistoryItem[]> {
  const items: HistoryItem[] = []
  for (const line of await auditOfEntry(db, id)) {
    const event = told.find((item) => item.at === line.at && item.event === MOVES[line.action])
    if (event) event.by = line.actor
    else
      items.push({
        at: line.at,
        event: line.action,
        by: line.actor,
        ...(line.detail ? { detail: line.detail } : {}),
      })
  }
  return items
}

/** The answers in the order the lab asks its questions (jsonb keeps its own order of keys). */
function inQuestionOrder(answers: Answers | null): Answers {
  const given = answers ?? {}
  const ordered: Answers = {}
  for (const { id } of signupQuestions) if (given[id] !== undefined) ordered[id] = given[id]
  return { ...ordered, ...given }
}
