import type { Database, Queryable } from '../db/database'
import type { Taken } from './count-buffer'
import { type DayPlan, planDay, type Row } from './day-plan'
import type { OverflowSketch } from './overflow-sketch'

// Adds a row's counts to the one already there (never sets them). A closed day's row (visitors set,
// bits dropped) takes the newcomers' count; an open one ORs the bits. `excluded.visitors` is null
// for a plain add and a closed row's count when one moves to (other).
const ADD_ON_CONFLICT = `
  on conflict (day, source, medium, campaign) do update set
    visits = t.visits + excluded.visits,
    signups = t.signups + excluded.signups,
    visitor_bits = case
      when t.visitors is not null then null
      when excluded.visitor_bits is null then t.visitor_bits
      when t.visitor_bits is null then excluded.visitor_bits
      else t.visitor_bits | excluded.visitor_bits
    end,
    visitors = case
      when t.visitors is null then null
      else t.visitors + coalesce(excluded.visitors, 0) + private.visitors_seen(excluded.visitor_bits)
    end`

// Adds to the day's counters (never sets them), so any number of servers, and the same server's
// retries of a failed write, sum. A day already closed (finalizeDays) adds its late visitors' count.
const ADD_COUNTS = `
  insert into private.source_counts as t (day, source, medium, campaign, visits, signups, visitor_bits)
  select $1::date, s, m, c, v, g, b::bit(65536)
    from unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[]) as x(s, m, c, v, g, b)
  ${ADD_ON_CONFLICT}`

// A source's rows that lost to a busier one: deleted, their counts (visitors too) added to the
// day's (other) row, in one statement.
const MOVE_TO_OTHER = `
  with gone as (
    delete from private.source_counts
     where day = $1::date
       and (source, medium, campaign) in (select * from unnest($2::text[], $3::text[], $4::text[]))
    returning visits, signups, visitor_bits, visitors
  )
  insert into private.source_counts as t (day, source, medium, campaign, visits, signups, visitor_bits, visitors)
  select $1::date, '(other)', '', '', sum(visits), sum(signups), bit_or(visitor_bits), sum(visitors)
    from gone having count(*) > 0
  ${ADD_ON_CONFLICT}`

// One constant for every server on the database: the lock that makes the daily cap a cap.
const CAP_LOCK = 40_240_024

function bitsText(bits: Uint8Array | undefined): string | null {
  return bits ? `x${Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength).toString('hex')}` : null
}

async function rowsOf(tx: Queryable, day: string): Promise<Row[]> {
  const rows = await tx.query<{ source: string; medium: string; campaign: string; weight: string }>(
    `select source, medium, campaign, visits + signups as weight
       from private.source_counts where day = $1::date and source not in ('(other)', '(api)')`,
    [day],
  )
  return rows.map(({ weight, ...key }) => ({ key, weight: Number(weight), stored: true }))
}

/**
 * Writes one buffer's worth in one transaction: all of it or, on failure, nothing (then retried).
 * Each day's write holds the day's lock (one for every server on the database), so the cap and the
 * takeovers are decided on the day's rows as they are.
 */
export async function addCounts(
  db: Database,
  taken: Taken,
  sketches: (day: string) => OverflowSketch,
  maxKeysPerDay: number,
): Promise<void> {
  const plans = new Map<string, DayPlan>()
  await db.transaction(async (tx) => {
    for (const [day, tallies] of taken) {
      await tx.query(`select pg_advisory_xact_lock($1, $2::date - date '2000-01-01')`, [CAP_LOCK, day])
      const plan = planDay(tallies, await rowsOf(tx, day), sketches(day), maxKeysPerDay)
      plans.set(day, plan)
      if (plan.takenOver.length > 0) {
        await tx.query(MOVE_TO_OTHER, [
          day,
          plan.takenOver.map((key) => key.source),
          plan.takenOver.map((key) => key.medium),
          plan.takenOver.map((key) => key.campaign),
        ])
      }
      const { rows } = plan
      await tx.query(ADD_COUNTS, [
        day,
        rows.map((row) => row.key.source),
        rows.map((row) => row.key.medium),
        rows.map((row) => row.key.campaign),
        rows.map((row) => row.visits),
        rows.map((row) => row.signups),
        rows.map((row) => bitsText(row.bits)),
      ])
    }
  })
  // Only once committed: the sketch remembers what really went to (other).
  for (const [day, plan] of plans) {
    const sketch = sketches(day)
    for (const name of plan.named) sketch.forget(name)
    for (const [name, weight] of plan.overflow) sketch.add(name, weight)
  }
}

/**
 * Closes the days before `lastOpenDay`: each row's visitor bits become its number of visitors and
 * are erased. Run a while after midnight, so the writes of the day's last seconds are in.
 */
export async function finalizeDays(db: Queryable, lastOpenDay: string): Promise<void> {
  await db.query(
    `update private.source_counts
        set visitors = private.visitors_seen(visitor_bits), visitor_bits = null
      where day < $1::date and visitor_bits is not null`,
    [lastOpenDay],
  )
}
