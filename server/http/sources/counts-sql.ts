import type { Database, Queryable } from '../../db/database'
import { keyString, OTHER, type Taken, type Tally } from './count-buffer'

// Adds to the day's counters (never sets them), so any number of servers, and the same server's
// retries of a failed write, sum. A day already closed (finalizeDays) adds its late visitors' count.
const ADD_COUNTS = `
  insert into private.source_counts as t (day, source, medium, campaign, visits, signups, visitor_bits)
  select $1::date, s, m, c, v, g, b::bit(65536)
    from unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[]) as x(s, m, c, v, g, b)
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
      else t.visitors + private.visitors_seen(excluded.visitor_bits)
    end`

// One constant for every server on the database: the lock that makes the daily cap a cap.
const CAP_LOCK = 40_240_024

function bitsText(bits: Uint8Array | undefined): string | null {
  return bits ? `x${Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength).toString('hex')}` : null
}

/**
 * Holds a day to `maxKeysPerDay` rows, across servers: tallies of sources the day does not have yet
 * take the room left, in the order counted; the rest are added to `(other)`. `known` (this server's
 * memory of the day's rows) is brought up to date while the lock is held.
 */
async function capped(
  tx: Queryable,
  day: string,
  tallies: Tally[],
  known: Set<string>,
  maxKeysPerDay: number,
): Promise<Tally[]> {
  if (tallies.every((tally) => known.has(keyString(tally.key)))) return tallies
  await tx.query(`select pg_advisory_xact_lock($1, $2::date - date '2000-01-01')`, [CAP_LOCK, day])
  const rows = await tx.query<{ source: string; medium: string; campaign: string }>(
    'select source, medium, campaign from private.source_counts where day = $1::date',
    [day],
  )
  for (const row of rows) known.add(keyString(row))
  const kept: Tally[] = []
  const other: Tally = { key: OTHER, visits: 0, signups: 0 }
  const otherName = keyString(OTHER)
  for (const tally of tallies) {
    const name = keyString(tally.key)
    if (name !== otherName && (known.has(name) || known.size < maxKeysPerDay)) {
      known.add(name)
      kept.push(tally)
      continue
    }
    // One (other) row per write: the buffer's own and the overflow are added together.
    other.visits += tally.visits
    other.signups += tally.signups
    if (tally.bits) other.bits = other.bits ? orBits(other.bits, tally.bits) : tally.bits
  }
  if (other.visits + other.signups > 0) {
    known.add(otherName)
    kept.push(other)
  }
  return kept
}

function orBits(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.map((byte, index) => byte | (b[index] ?? 0))
}

/** Writes one buffer's worth in one transaction: all of it or, on failure, nothing (then retried). */
export async function addCounts(
  db: Database,
  taken: Taken,
  knownByDay: Map<string, Set<string>>,
  maxKeysPerDay: number,
): Promise<void> {
  const learned = new Map<string, Set<string>>()
  await db.transaction(async (tx) => {
    for (const [day, tallies] of taken) {
      const known = new Set(knownByDay.get(day))
      const rows = await capped(tx, day, tallies, known, maxKeysPerDay)
      learned.set(day, known)
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
  // Only once committed: a row this server believes in is one the day really has.
  for (const [day, known] of learned) knownByDay.set(day, known)
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
