import { maskEmails } from '../base/log'
import type { Queryable } from '../db/database'
import { isoUtc } from '../db/iso-utc'

/**
 * The two outboxes: the same columns (id, status, run_at, attempts, last_error, queued_at), read the
 * same way. `channel` is the one name of the NOTIFY that wakes each one's pump: the migrations'
 * triggers signal the same names. `done` is the status of an item sent (and its `<done>_at` column).
 */
export const OUTBOXES = {
  webhooks: { table: 'private.webhook_deliveries', channel: 'webhook_deliveries', done: 'delivered' },
  mail: { table: 'private.mail_outbox', channel: 'mail_outbox', done: 'sent' },
} as const

export type Outbox = (typeof OUTBOXES)[keyof typeof OUTBOXES]

/** The SQL expression that wakes the outbox's pumps once the caller's transaction commits. */
export const notify = (outbox: Outbox) => `pg_notify('${outbox.channel}', '')`

/** One claimed attempt: its row, and the attempt number that fences its outcome. */
export interface Attempt {
  id: string
  attempt: number
}

/**
 * Claims the rows `due` selects (aliased `due`, with an `id`; locked FOR UPDATE SKIP LOCKED, so
 * several servers claim side by side) for one attempt each. Pushing run_at past the lease is the
 * claim: no other server takes the row while this attempt is in flight, and a server that dies
 * mid-send leaves it due again once the lease ends (at least once, never two at a time). The lease
 * is the last parameter; `returning` reads the claimed row as `o`.
 */
export function claimWithLease<Item>(
  db: Queryable,
  outbox: Outbox,
  claim: { due: string; params: unknown[]; leaseMs: number; returning: string },
): Promise<Item[]> {
  const lease = claim.params.length + 1
  return db.query<Item>(
    `with due as (${claim.due})
     update ${outbox.table} o
        set run_at = now() + $${lease}::double precision * interval '1 millisecond', attempts = o.attempts + 1
       from due where o.id = due.id
     returning ${claim.returning}`,
    [...claim.params, claim.leaseMs],
  )
}

/**
 * Records a sent item, fenced by the attempt: a stale attempt whose lease ran out changes nothing
 * (false). `alsoSet` is what the outbox forgets once sent.
 */
export async function markDone(db: Queryable, outbox: Outbox, item: Attempt, alsoSet = ''): Promise<boolean> {
  const { affected } = await db.run(
    `update ${outbox.table} set status = '${outbox.done}', ${outbox.done}_at = now(), last_error = null${alsoSet}
      where id = $1::bigint and attempts = $2 and status = 'pending'`,
    [item.id, item.attempt],
  )
  return affected > 0
}

/**
 * Records a failed attempt and when to try again, or marks the row failed once that would be past
 * its retry window (counted from when it was queued). Fenced by the attempt: a stale attempt whose
 * lease ran out changes nothing ('gone'). Returns the row's new status. The error text is stored
 * masked, whoever wrote it: an SMTP or HTTP answer often quotes the address it refused.
 */
export async function markFailed(
  db: Queryable,
  outbox: Outbox,
  attempt: Attempt,
  retry: { error: string; retryInMs: number; retryForMs: number },
): Promise<'pending' | 'failed' | 'gone'> {
  const [row] = await db.query<{ status: 'pending' | 'failed' }>(
    `update ${outbox.table}
        set last_error = $3,
            status = case
              when now() + $4::double precision * interval '1 millisecond'
                   > queued_at + $5::double precision * interval '1 millisecond'
              then 'failed' else 'pending' end,
            run_at = now() + $4::double precision * interval '1 millisecond'
      where id = $1::bigint and attempts = $2 and status = 'pending'
      returning status`,
    [attempt.id, attempt.attempt, maskEmails(retry.error), retry.retryInMs, retry.retryForMs],
  )
  return row?.status ?? 'gone'
}

/** When the next pending row falls due, in milliseconds from now (undefined: none pending). */
export async function nextDueIn(db: Queryable, outbox: Outbox): Promise<number | undefined> {
  // Not greatest(0, …) in SQL: GREATEST skips a NULL, so an empty outbox would read as "due now"
  // and the pump would poll every few milliseconds while idle.
  const [row] = await db.query<{ ms: number | null }>(
    `select (extract(epoch from min(run_at) - now()) * 1000)::float8 as ms from ${outbox.table} where status = 'pending'`,
  )
  return row?.ms == null ? undefined : Math.max(0, row.ms)
}

/**
 * Puts every failed row back in the queue, due now, with a fresh retry window, and wakes the
 * pumps (`deliveries --retry`). `sendable`, when given, is the SQL condition a failed row must meet
 * to have anything left to send. Returns how many.
 */
export async function retryFailed(db: Queryable, outbox: Outbox, sendable = 'true'): Promise<number> {
  const { affected } = await db.run(
    `update ${outbox.table} set status = 'pending', run_at = now(), queued_at = now(), attempts = 0
      where status = 'failed' and (${sendable})`,
  )
  if (affected > 0) await db.query(`select ${notify(outbox)}`)
  return affected
}

/** What the owner's `deliveries` lists of every row not yet sent, whichever the outbox. */
export interface UndeliveredRow {
  id: string
  email: string
  attempts: number
  runAt: string
  lastError: string | null
}

/**
 * The rows in `statuses`, in that order, then by `order` (the owner's CLI): with the entry's full
 * address from the waitlist row (`w`, joined by `join`) and the outbox's own `columns` (`o`).
 */
export function listUndelivered<Row extends UndeliveredRow>(
  db: Queryable,
  outbox: Outbox,
  list: { statuses: readonly string[]; columns: string; join: 'join' | 'left join'; order: string },
): Promise<Row[]> {
  return db.query<Row>(
    `select o.id::text as id, o.status, coalesce(w.email::text, '') as email, o.attempts,
            ${isoUtc('o.run_at')} as "runAt", o.last_error as "lastError", ${list.columns}
       from ${outbox.table} o ${list.join} public.waitlist w on w.id = o.waitlist_id
      where o.status = any($1::text[])
      order by array_position($1::text[], o.status), ${list.order}`,
    [list.statuses],
  )
}
