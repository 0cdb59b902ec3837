import type { Database, Queryable } from '../../db/database'
import type { EntryStatus } from '../invitations/entry-status'
import { importStatuses, STATE_COLUMNS } from '../invitations/import-statuses'
import { dropDeliveries, withoutNotifications } from '../notifications/outbox-sql'

/**
 * The owner's reads and writes on the waitlist, shared by the CLI and the studio. Every function
 * takes the database as an argument and runs as the owner, outside RLS.
 */

export interface Entry {
  email: string
  /** UTC, microseconds, e.g. 2026-11-01T09:00:00.123456Z: what `export` writes. */
  created_at: string
  /** Its invitation status and when it changed (export and import carry them); an old export has none. */
  state?: EntryState
}

/** The status (waiting when the entry has none of its own) and its dates, '' for none, as `export` writes them. */
export interface EntryState {
  status: EntryStatus
  confirmed_at: string
  invited_at: string
  unsubscribed_at: string
  bounced_at: string
}

/** Rows read with STATE_COLUMNS, made into entries. */
const withState = (rows: (Omit<Entry, 'state'> & EntryState)[]): Entry[] =>
  rows.map(({ email, created_at, ...state }) => ({ email, created_at, state }))

const CREATED_AT_UTC = `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/**
 * citext's case-insensitive `=` lives in the `extensions` schema (as on Supabase); without it on
 * the search path `email = $1` silently compares as text, case-sensitively.
 */
const CITEXT_SEARCH_PATH = 'set local search_path = public, extensions'

export async function countEntries(db: Queryable, since?: string): Promise<number> {
  const [row] = await db.query<{ entries: number }>(
    'select count(*)::int as entries from public.waitlist where $1::timestamptz is null or created_at >= $1::timestamptz',
    [since ?? null],
  )
  return row?.entries ?? 0
}

/** Every entry with its status, oldest first: the order of `list` and `export`. */
export async function readEntries(db: Queryable, since?: string): Promise<Entry[]> {
  const rows = await db.query<Omit<Entry, 'state'> & EntryState>(
    `select w.email::text as email, ${CREATED_AT_UTC} as created_at, ${STATE_COLUMNS}
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where $1::timestamptz is null or created_at >= $1::timestamptz
      order by created_at, w.id`,
    [since ?? null],
  )
  return withState(rows)
}

export interface EntryPage {
  entries: Entry[]
  /** Entries matching the search, on every page. */
  matching: number
}

/** `%`, `_` and `\` match themselves in the search, not as LIKE wildcards. */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
}

/** One page of entries, newest first, whose address contains `search` (any letter case). */
export async function pageEntries(
  db: Queryable,
  options: { search?: string; offset: number; limit: number },
): Promise<EntryPage> {
  const pattern = options.search ? likePattern(options.search) : null
  const [count] = await db.query<{ matching: number }>(
    `select count(*)::int as matching from public.waitlist where $1::text is null or email::text ilike $1`,
    [pattern],
  )
  const rows = await db.query<Omit<Entry, 'state'> & EntryState>(
    `select w.email::text as email, ${CREATED_AT_UTC} as created_at, ${STATE_COLUMNS}
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where $1::text is null or email::text ilike $1
      order by created_at desc, w.id desc
      limit $2 offset $3`,
    [pattern, options.limit, options.offset],
  )
  return { entries: withState(rows), matching: count?.matching ?? 0 }
}

export interface DayCount {
  /** YYYY-MM-DD, UTC. */
  day: string
  count: number
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/**
 * Signups per UTC day, every day present (zeros included), from `days - 1` days before today to
 * today, or from the first signup when `days` is 'all'. A day after today (an imported future
 * date) extends the range rather than vanishing.
 */
export async function signupsPerDay(
  db: Queryable,
  days: number | 'all',
  now = new Date(),
): Promise<DayCount[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const from = days === 'all' ? null : new Date(today - (days - 1) * 86_400_000)
  const rows = await db.query<{ day: string; count: number }>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as count
       from public.waitlist
      where $1::timestamptz is null or created_at >= $1::timestamptz
      group by 1
      order by 1`,
    [from?.toISOString() ?? null],
  )
  const counts = new Map(rows.map((row) => [row.day, row.count]))
  const first = from ? from.getTime() : Date.parse(rows[0]?.day ?? utcDay(now))
  const lastDay = rows.at(-1)?.day
  const last = Math.max(today, lastDay ? Date.parse(lastDay) : today)
  const result: DayCount[] = []
  for (let time = first; time <= last; time += 86_400_000) {
    const day = utcDay(new Date(time))
    result.push({ day, count: counts.get(day) ?? 0 })
  }
  return result
}

/**
 * Removes the address, whatever its letter case; true when a row went. `dropDeliveries` runs in the
 * same transaction, so an erased address leaves no pending notification behind either.
 */
export async function removeEntry(db: Database, email: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.exec(CITEXT_SEARCH_PATH)
    // Before the row goes, while the delivery can still be found by its address (the foreign key's
    // cascade would drop it too; this says so where the erasure happens).
    await dropDeliveries(tx, email)
    const { affected } = await tx.run('delete from public.waitlist where email = $1::citext', [email])
    return affected > 0
  })
}

/** How many of these addresses are already on the list (case-insensitively). */
export async function countListed(db: Database, emails: readonly string[]): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.exec(CITEXT_SEARCH_PATH)
    const [row] = await tx.query<{ listed: number }>(
      'select count(*)::int as listed from public.waitlist where email = any($1::text[]::citext[])',
      [emails],
    )
    return row?.listed ?? 0
  })
}

export interface ImportResult {
  added: number
  /** Already on the list, left as they were, but for a status the file has further on (see importStatuses). */
  skipped: number
  /** Of those, how many took the file's status: invited, bounced or unsubscribed. */
  statusesRaised: number
}

const IMPORT_BATCH = 1000

/**
 * Adds entries with their own created_at, in one transaction: all or nothing. Addresses already
 * listed are skipped and counted. The transaction is marked so that the signup notifications
 * (the webhook outbox) leave imported rows alone; without the outbox the setting does nothing.
 */
export async function importEntries(
  db: Database,
  entries: readonly Entry[],
  onProgress?: (done: number) => void,
): Promise<ImportResult> {
  return db.transaction(async (tx) => {
    // Moving a list is not news: imported signups send no notification.
    await withoutNotifications(tx)
    let added = 0
    let statusesRaised = 0
    for (let start = 0; start < entries.length; start += IMPORT_BATCH) {
      const batch = entries.slice(start, start + IMPORT_BATCH)
      const inserted = await tx.query<{ id: string }>(
        `insert into public.waitlist (email, created_at)
         select email, created_at from unnest($1::text[], $2::timestamptz[]) as t(email, created_at)
         on conflict (email) do nothing
         returning id::text as id`,
        [batch.map((entry) => entry.email), batch.map((entry) => entry.created_at)],
      )
      added += inserted.length
      statusesRaised += await importStatuses(tx, batch, new Set(inserted.map((row) => row.id)))
      onProgress?.(start + batch.length)
    }
    return { added, skipped: entries.length - added, statusesRaised }
  })
}
