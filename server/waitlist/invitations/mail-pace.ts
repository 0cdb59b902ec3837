import type { Queryable } from '../../db/database'

/**
 * MAIL_PER_MINUTE for every server on the database together, kept in Postgres
 * (private.mail_pace): a message may start only once the shared `next_slot` has come, and taking
 * it moves the slot 60 s / MAIL_PER_MINUTE on. Messages go out evenly spaced, never in a burst, so
 * no minute ever holds more than MAIL_PER_MINUTE of them, however many servers send.
 * Returns 0 when a slot was taken, else the milliseconds until the next one.
 */
export async function takeMailSlot(tx: Queryable, perMinute: number): Promise<number> {
  if (perMinute <= 0) return 0
  const intervalMs = 60_000 / perMinute
  const [row] = await tx.query<{ wait_ms: number }>(
    `with pace as (select next_slot from private.mail_pace where singleton for update),
     taken as (
       update private.mail_pace m
          set next_slot = greatest(pace.next_slot, clock_timestamp()) + $1::double precision * interval '1 millisecond'
         from pace
        where m.singleton and pace.next_slot <= clock_timestamp()
        returning 1
     )
     select case when exists (select 1 from taken) then 0
                 else greatest(1, extract(epoch from pace.next_slot - clock_timestamp()) * 1000) end::float8 as wait_ms
       from pace`,
    [intervalMs],
  )
  return row?.wait_ms ?? 0
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
