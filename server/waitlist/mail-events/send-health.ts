import type { Database, Queryable } from '../../db/database'
import { notify, OUTBOXES } from '../../outbox/outbox-queries'
import { queueEvent } from '../notifications/outbox-sql'

/** The last messages sent that send health looks at, and how many must have gone before it judges. */
export const HEALTH_WINDOW = 1000
export const HEALTH_MIN_SENT = 20

/** MAIL_PAUSE_BOUNCE_RATE and MAIL_PAUSE_COMPLAINT_RATE: a rate past one pauses sending; 1 turns it off. */
export interface PauseLimits {
  bounceRate: number
  complaintRate: number
}

/** The last HEALTH_WINDOW messages sent since the window started, for every server on the database. */
export interface SendHealth {
  sent: number
  hardBounces: number
  complaints: number
  windowStartedAt: string
  /** While sending is paused: since when, and why. */
  paused?: { at: string; reason: string }
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`

/**
 * Reads the window: the latest messages sent (a synchronous 5xx counts as sent and hard-bounced),
 * through the index on sent_at, so the cost does not grow with the outbox.
 */
export async function readSendHealth(db: Queryable): Promise<SendHealth> {
  const [row] = await db.query<{
    sent: number
    hard: number
    complaints: number
    window: string
    pausedAt: string | null
    reason: string | null
  }>(
    `with recent as (
       select o.status, o.outcome from private.mail_outbox o, private.mail_health h
        where o.sent_at is not null and o.sent_at >= h.window_started_at
        order by o.sent_at desc limit ${HEALTH_WINDOW}
     )
     select (select count(*) from recent)::int as sent,
            (select count(*) from recent where outcome = 'hard' or status = 'bounced')::int as hard,
            (select count(*) from recent where outcome = 'complaint')::int as complaints,
            to_char(h.window_started_at at time zone 'UTC', ${ISO}) as window,
            to_char(h.paused_at at time zone 'UTC', ${ISO}) as "pausedAt", h.pause_reason as reason
       from private.mail_health h`,
  )
  if (!row) throw new Error('private.mail_health has no row: run the migrations')
  const health: SendHealth = {
    sent: row.sent,
    hardBounces: row.hard,
    complaints: row.complaints,
    windowStartedAt: row.window,
  }
  if (row.pausedAt) health.paused = { at: row.pausedAt, reason: row.reason ?? '' }
  return health
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`

/** Why these figures call for a pause, in the owner's words, or undefined while they are fine. */
export function pauseReason(health: SendHealth, limits: PauseLimits): string | undefined {
  const { sent, hardBounces, complaints } = health
  if (sent < HEALTH_MIN_SENT) return undefined
  // A limit of 1 is off: no rate is past it.
  if (hardBounces / sent > limits.bounceRate)
    return `hard bounces are ${percent(hardBounces, sent)} of the last ${sent} messages (${hardBounces}), past MAIL_PAUSE_BOUNCE_RATE ${limits.bounceRate}`
  if (complaints / sent > limits.complaintRate)
    return `complaints are ${percent(complaints, sent)} of the last ${sent} messages (${complaints}), past MAIL_PAUSE_COMPLAINT_RATE ${limits.complaintRate}`
  return undefined
}

/**
 * Pauses sending for every server, unless it is paused already; true when this call paused it (its
 * server then says why, once) and queued the mail.paused webhook event.
 */
export async function pauseSending(db: Queryable, reason: string): Promise<boolean> {
  const paused = await db.query(
    `update private.mail_health set paused_at = now(), pause_reason = $1 where paused_at is null returning 1`,
    [reason],
  )
  if (paused.length === 0) return false
  await queueEvent(db, null, 'mail.paused', reason)
  return true
}

/**
 * Resumes sending and starts a new window (the messages before it no longer count), then wakes
 * the senders. Returns the pause it ended, if any.
 */
export async function resumeSending(db: Database): Promise<{ reason: string } | undefined> {
  const reason = await db.transaction(async (tx) => {
    const [before] = await tx.query<{ reason: string | null }>(
      'select pause_reason as reason from private.mail_health for update',
    )
    await tx.run(
      'update private.mail_health set paused_at = null, pause_reason = null, window_started_at = now()',
    )
    await tx.query(`select ${notify(OUTBOXES.mail)}`)
    return before?.reason
  })
  return reason ? { reason } : undefined
}
