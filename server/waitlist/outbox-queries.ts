import { maskEmails } from '../boot/log'
import type { Queryable } from '../db/database'

/** The outboxes: the same columns (id, status, run_at, attempts, last_error, queued_at), read the same way. */
export type OutboxTable = 'private.signup_deliveries' | 'private.mail_outbox'

/** One claimed attempt: its row, and the attempt number that fences its outcome. */
export interface Attempt {
  id: string
  attempt: number
}

/**
 * Records a failed attempt and when to try again, or marks the row failed once that would be past
 * its retry window (counted from when it was queued). Fenced by the attempt: a stale attempt whose
 * lease ran out changes nothing ('gone'). Returns the row's new status. The error text is stored
 * masked, whoever wrote it: an SMTP or HTTP answer often quotes the address it refused.
 */
export async function recordAttemptFailed(
  db: Queryable,
  table: OutboxTable,
  attempt: Attempt,
  retry: { error: string; retryInMs: number; retryForMs: number },
): Promise<'pending' | 'failed' | 'gone'> {
  const [row] = await db.query<{ status: 'pending' | 'failed' }>(
    `update ${table}
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
export async function nextDueIn(db: Queryable, table: OutboxTable): Promise<number | undefined> {
  // Not greatest(0, …) in SQL: GREATEST skips a NULL, so an empty outbox would read as "due now"
  // and the pump would poll every few milliseconds while idle.
  const [row] = await db.query<{ ms: number | null }>(
    `select (extract(epoch from min(run_at) - now()) * 1000)::float8 as ms from ${table} where status = 'pending'`,
  )
  return row?.ms == null ? undefined : Math.max(0, row.ms)
}
