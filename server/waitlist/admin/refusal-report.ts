import type { Queryable } from '../../db/database'
import { isoUtc } from '../../db/iso-utc'

/**
 * Who refused the lab's mail since the last invitations were queued: the entries that bounced (an
 * SMTP refusal, a provider's hard bounce, three soft ones in a row) or complained, from their
 * statuses, the one record every way in writes (apply-mail-event.ts, the SMTP sender). The
 * messages' own outcomes would miss the soft bounces; the statuses miss nothing.
 */

export interface RefusedEntry {
  status: 'bounced' | 'complained'
  /** When it bounced (bounced_at) or complained (unsubscribed_at, ADR 043), UTC. */
  at: string
  email: string
  /** The last error of its latest message that had one (an SMTP refusal's words), if any. */
  lastError: string | null
}

export interface RefusalReport {
  /** When the last invitations were queued (the latest invited_at), UTC; null before any. */
  since: string | null
  bounced: number
  complained: number
  /** The first `limit` of them, in the order they happened. */
  entries: RefusedEntry[]
}

const WHEN = `case s.status when 'bounced' then s.bounced_at else s.unsubscribed_at end`

/** Bounced and complained entries whose date is at or after the last batch's (all, before any batch). */
const REFUSED_SINCE = `
  from private.entry_status s join public.waitlist w on w.id = s.waitlist_id,
       (select max(invited_at) as at from private.entry_status) as batch
 where s.status in ('bounced', 'complained') and (batch.at is null or ${WHEN} >= batch.at)`

export async function refusalsSinceLastBatch(db: Queryable, limit: number): Promise<RefusalReport> {
  const [counts] = await db.query<{ since: string | null; bounced: number; complained: number }>(
    `select (select ${isoUtc('max(invited_at)')} from private.entry_status) as since,
            count(*) filter (where s.status = 'bounced')::int as bounced,
            count(*) filter (where s.status = 'complained')::int as complained
       ${REFUSED_SINCE}`,
  )
  const entries = await db.query<RefusedEntry>(
    `select s.status, ${isoUtc(WHEN)} as at, w.email::text as email,
            (select o.last_error from private.mail_outbox o
              where o.waitlist_id = w.id and o.last_error is not null
              order by o.id desc limit 1) as "lastError"
       ${REFUSED_SINCE}
      order by ${WHEN}, w.id
      limit $1`,
    [limit],
  )
  return {
    since: counts?.since ?? null,
    bounced: counts?.bounced ?? 0,
    complained: counts?.complained ?? 0,
    entries,
  }
}
