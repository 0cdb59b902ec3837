import type { Queryable } from '../../db/database'

/** A lane of the shared pace: the outbox's priority (0 confirmations, 1 invitations and tests). */
export type MailLane = 0 | 1

export type MailSlot = { lane: MailLane; waitMs: 0 } | { waitMs: number }

/**
 * MAIL_PER_MINUTE for every server on the database together, kept in Postgres
 * (private.mail_pace): a message may start only once the shared `next_slot` has come, and taking
 * it moves the slot 60 s / MAIL_PER_MINUTE on. Messages go out evenly spaced, never in a burst, so
 * no minute ever holds more than MAIL_PER_MINUTE of them, however many servers send.
 *
 * The slot goes to one of the lanes that have messages due (`waiting`): while both have, to the one
 * that did not take the last slot (`last_lane`), so a flood of confirmations gets half the pace and
 * the invitations the other half (ADR 046); a lane alone gets all of it.
 * Returns the lane when a slot was taken, else the milliseconds until the next one. Only under a
 * cap (perMinute > 0): without one there is no pace and no row to lock.
 */
export async function takeMailSlot(
  tx: Queryable,
  perMinute: number,
  waiting: readonly MailLane[],
): Promise<MailSlot> {
  const intervalMs = 60_000 / perMinute
  const [row] = await tx.query<{ wait_ms: number; lane: MailLane | null }>(
    `with pace as (select next_slot, last_lane from private.mail_pace where singleton for update),
     pick as (
       select case when cardinality($2::smallint[]) = 1 then ($2::smallint[])[1]
                   else 1 - coalesce(pace.last_lane, 1) end::smallint as lane
         from pace
     ),
     taken as (
       update private.mail_pace m
          set next_slot = greatest(pace.next_slot, clock_timestamp()) + $1::double precision * interval '1 millisecond',
              last_lane = pick.lane
         from pace, pick
        where m.singleton and pace.next_slot <= clock_timestamp()
        returning pick.lane
     )
     select (select lane from taken) as lane,
            case when exists (select 1 from taken) then 0
                 else greatest(1, extract(epoch from pace.next_slot - clock_timestamp()) * 1000) end::float8 as wait_ms
       from pace`,
    [intervalMs, waiting],
  )
  if (!row || row.lane === null) return { waitMs: row?.wait_ms ?? 1 }
  return { lane: row.lane, waitMs: 0 }
}

/** Milliseconds until the next slot (0 when one is free now, or when there is no cap). */
export async function nextSlotInMs(db: Queryable, perMinute: number): Promise<number> {
  if (perMinute <= 0) return 0
  const [row] = await db.query<{ wait_ms: number }>(
    `select greatest(0, extract(epoch from next_slot - clock_timestamp()) * 1000)::float8 as wait_ms
       from private.mail_pace where singleton`,
  )
  return row?.wait_ms ?? 0
}
