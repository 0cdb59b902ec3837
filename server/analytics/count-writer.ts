import { randomBytes } from 'node:crypto'
import type { Logger } from '../base/log'
import type { Database, Queryable } from '../db/database'
import { type CountBuffer, type DayPlan, OverflowSketch, planDay, type Row, type Taken } from './count-buffer'
import { utcDay } from './utc-day'

/**
 * Taking the counts to the database (after Plausible's write_buffer.ex flush): the writer's rounds
 * off the request path, the SQL that adds a buffer's counts to `private.source_counts` under the
 * day's cap, and the day's salt of the visitor hash, which the same rounds load and delete.
 */

const MAINTENANCE_MS = 60_000
// A day's visitor bits stay until ten minutes after its end, so that its last writes still meet them.
const CLOSE_AFTER_MS = 10 * 60_000

export interface CountWriterOptions {
  db: Database
  log: Logger
  buffer: CountBuffer
  salt: DailySalt
  maxKeysPerDay: number
  flushMs: number
  now: () => number
}

/**
 * Off the request path: every `flushMs`, the buffer's counts go to the database in one transaction
 * (on failure they go back into the buffer for the next try); the day's salt is loaded when the day
 * changes; once a minute, past days' salts are deleted and their visitor bits closed into numbers.
 * What a crash can lose is what the buffer held: at most `flushMs` of counting.
 */
export class CountWriter {
  readonly #options: CountWriterOptions
  // Per day: the sources this server counted under (other), for the takeover of rows (addCounts).
  readonly #overflow = new Map<string, OverflowSketch>()
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #lastMaintenance = Number.NEGATIVE_INFINITY
  #failing = false

  constructor(options: CountWriterOptions) {
    this.#options = options
  }

  /** Loads the day's salt and starts the timer; counting works meanwhile, visitors from the salt on. */
  async start(): Promise<void> {
    await this.tick()
    this.#timer = setInterval(() => void this.tick(), this.#options.flushMs)
    this.#timer.unref()
  }

  /** One round: the salt, the write, and the minute's upkeep. Rounds never overlap. */
  tick(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  /** The last write: the timer stops, the round under way ends, what is left is written. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
    await this.tick()
    this.#options.salt.forget()
  }

  async #round(): Promise<void> {
    const { db, salt, now } = this.#options
    const today = utcDay(now())
    try {
      await salt.refresh(db, today)
      await this.#write()
      if (now() - this.#lastMaintenance >= MAINTENANCE_MS) {
        await deleteOldSalts(db, today)
        await finalizeDays(db, utcDay(now() - CLOSE_AFTER_MS))
        this.#lastMaintenance = now()
        this.#forgetDaysBefore(utcDay(now() - 2 * CLOSE_AFTER_MS))
      }
      if (this.#failing) this.#options.log.info('Source counts are written again.')
      this.#failing = false
    } catch (error) {
      // Said once per outage, not every few seconds; the counts wait in the buffer meanwhile.
      if (!this.#failing)
        this.#options.log.error('Source counts could not be written (kept for the next try):', error)
      this.#failing = true
    }
  }

  async #write(): Promise<void> {
    const { buffer, db, maxKeysPerDay } = this.#options
    if (buffer.isEmpty) return
    const taken = buffer.take()
    try {
      await addCounts(db, taken, (day) => this.#sketchOf(day), maxKeysPerDay)
    } catch (error) {
      buffer.putBack(taken)
      throw error
    }
  }

  #sketchOf(day: string): OverflowSketch {
    let sketch = this.#overflow.get(day)
    if (!sketch) {
      sketch = new OverflowSketch()
      this.#overflow.set(day, sketch)
    }
    return sketch
  }

  #forgetDaysBefore(day: string): void {
    for (const known of this.#overflow.keys()) if (known < day) this.#overflow.delete(known)
  }
}

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

/**
 * The day's salt for the visitor hash (Plausible's method): random, one per UTC day, kept in the
 * database so that every server on it hashes a visitor alike, and deleted once the day is over.
 * A server that would create the salt of a day the database already thinks is over creates none:
 * a deleted salt never comes back (its visits then count, but not as visitors, for those seconds).
 */
export class DailySalt {
  #day = ''
  #salt: string | undefined

  /** The salt of `day` (hex), when this server holds it; undefined otherwise (no visitor is counted). */
  saltFor(day: string): string | undefined {
    return day === this.#day ? this.#salt : undefined
  }

  /** Loads (or creates) the salt of `day`, once per day; the request path never waits for it. */
  async refresh(db: Queryable, day: string): Promise<void> {
    if (day === this.#day) return
    await db.query(
      `insert into private.visitor_salts (day, salt)
       select $1::date, $2::bytea where $1::date >= (now() at time zone 'UTC')::date
       on conflict (day) do nothing`,
      [day, randomBytes(32)],
    )
    // A statement of its own, so it sees a salt another server committed meanwhile.
    const [row] = await db.query<{ salt: Buffer }>(
      'select salt from private.visitor_salts where day = $1::date',
      [day],
    )
    if (!row) return
    this.#day = day
    this.#salt = row.salt.toString('hex')
    row.salt.fill(0)
  }

  /** Forgets this server's copy (the server is stopping, or the day is over). */
  forget(): void {
    this.#day = ''
    this.#salt = undefined
  }
}

/** Deletes the salts of the days before `today`: their visitors can no longer be told apart. */
export async function deleteOldSalts(db: Queryable, today: string): Promise<void> {
  await db.query('delete from private.visitor_salts where day < $1::date', [today])
}
