import { NO_VISIT, type SourceKey } from './source-of'

/**
 * The write buffer (after Plausible's ingestion/write_buffer.ex) and who keeps a row on a busy day
 * (docs/analytics.md, ADR 057). Counts are added in memory on the request path and taken out every
 * few seconds by one write; a day keeps at most `maxKeysPerDay` named rows, in this buffer and in
 * the table across servers. In both, the heaviest sources (visits plus signups) keep their names
 * and the rest count under `(other)`, by Space-Saving (Metwally et al., 2005): a newcomer takes the
 * place of the lightest when it outweighs it, so a flood cannot push a real source out, and no
 * count is ever dropped, only a name.
 */

/** Bits in a day's visitor sketch (private.source_counts.visitor_bits is bit(65536)). */
export const VISITOR_BITS = 65_536

/** What a day's visits past the cap count under: visits and signups are never dropped, only their source. */
export const OTHER: SourceKey = { source: '(other)', medium: '', campaign: '' }

/** One source's counts for one day, since the last write. */
export interface Tally {
  key: SourceKey
  visits: number
  signups: number
  /** The visitors' bits (visitorBit in source-counter.ts), made when the first visitor is counted. */
  bits?: Uint8Array
  /**
   * Space-Saving's error: the weight of the tally this one took the place of, when the buffer was
   * full. The source may have had up to this much before, counted under (other).
   */
  floor: number
}

/** The tallies of one write: by UTC day (YYYY-MM-DD). */
export type Taken = Map<string, Tally[]>

export function keyString(key: SourceKey): string {
  // Tags hold no control characters (source-of.ts), so a newline cannot occur inside one.
  return `${key.source}\n${key.medium}\n${key.campaign}`
}

/** What ranks a source for a row: its visits and signups. */
export function weightOf(tally: Pick<Tally, 'visits' | 'signups'>): number {
  return tally.visits + tally.signups
}

/** Rows of the server's own (`(other)`, `(api)`): outside the cap, never taken over. */
export function isReserved(key: SourceKey): boolean {
  return (
    (key.source === OTHER.source || key.source === NO_VISIT.source) &&
    key.medium === '' &&
    key.campaign === ''
  )
}

function orInto(target: Uint8Array, source: Uint8Array): void {
  for (let index = 0; index < target.length; index++)
    target[index] = (target[index] ?? 0) | (source[index] ?? 0)
}

/** Adds `from`'s counts and visitors to `into`. */
export function mergeInto(into: Tally, from: Pick<Tally, 'visits' | 'signups' | 'bits'>): void {
  into.visits += from.visits
  into.signups += from.signups
  if (from.bits && into.bits) orInto(into.bits, from.bits)
  else if (from.bits) into.bits = from.bits.slice()
}

/**
 * Counts in memory, taken out by one write. Memory is bounded whatever clients send: at most
 * `maxKeysPerDay` sources (with their media and campaigns) a day, kept by Space-Saving: a new
 * source takes the place of the lightest, whose counts move to `(other)`, so the heaviest stay
 * named (any source with more than 1/maxKeysPerDay of a write's weight keeps its name). Not
 * lru-cache: a sketch keeps the heaviest, where a least-recently-used bound would let a stranger's
 * stream of one-off sources push the launch post's out of its row (ADR 057).
 */
export class CountBuffer {
  readonly #days = new Map<string, Map<string, Tally>>()

  constructor(readonly maxKeysPerDay: number) {}

  get isEmpty(): boolean {
    return this.#days.size === 0
  }

  addVisit(day: string, key: SourceKey, bit: number | undefined): void {
    const tally = this.#tally(day, key)
    tally.visits += 1
    if (bit === undefined) return
    tally.bits ??= new Uint8Array(VISITOR_BITS / 8)
    tally.bits[bit >>> 3] = (tally.bits[bit >>> 3] ?? 0) | (0x80 >>> (bit & 7))
  }

  addSignups(day: string, key: SourceKey, count: number): void {
    this.#tally(day, key).signups += count
  }

  /** Everything counted so far, leaving the buffer empty. */
  take(): Taken {
    const taken: Taken = new Map()
    for (const [day, tallies] of this.#days) taken.set(day, [...tallies.values()])
    this.#days.clear()
    return taken
  }

  /** Puts back what a failed write took, added to what arrived meanwhile (under the same cap). */
  putBack(taken: Taken): void {
    for (const [day, tallies] of taken) {
      for (const taken of tallies) {
        const tally = this.#tally(day, taken.key)
        mergeInto(tally, taken)
        tally.floor = Math.max(tally.floor, taken.floor)
      }
    }
  }

  #tally(day: string, key: SourceKey): Tally {
    let tallies = this.#days.get(day)
    if (!tallies) {
      tallies = new Map()
      this.#days.set(day, tallies)
    }
    const name = keyString(key)
    let tally = tallies.get(name)
    if (tally) return tally
    tally = { key, visits: 0, signups: 0, floor: 0 }
    if (!isReserved(key) && this.#named(tallies) >= this.maxKeysPerDay) tally.floor = this.#evict(tallies)
    tallies.set(name, tally)
    return tally
  }

  #named(tallies: Map<string, Tally>): number {
    return tallies.size - (tallies.has(keyString(OTHER)) ? 1 : 0) - (tallies.has(keyString(NO_VISIT)) ? 1 : 0)
  }

  /** Moves the lightest named tally into (other); returns its estimated weight, the newcomer's floor. */
  #evict(tallies: Map<string, Tally>): number {
    let lightest: Tally | undefined
    for (const tally of tallies.values()) {
      if (isReserved(tally.key)) continue
      if (!lightest || tally.floor + weightOf(tally) < lightest.floor + weightOf(lightest)) lightest = tally
    }
    if (!lightest) return 0
    tallies.delete(keyString(lightest.key))
    const otherName = keyString(OTHER)
    const other = tallies.get(otherName) ?? { key: OTHER, visits: 0, signups: 0, floor: 0 }
    tallies.set(otherName, other)
    mergeInto(other, lightest)
    return lightest.floor + weightOf(lightest)
  }
}

/** Sources a server remembers a day's overflow for: a few hundred KB at most (names ≤ 302 characters). */
export const OVERFLOW_SOURCES = 1000

/**
 * How much weight (visits and signups) each source this server counted under `(other)` today has
 * put there, by Space-Saving (Metwally et al., 2005): `capacity` sources at most; a new one takes
 * the place of the lightest and starts from its count. So an estimate is never below the truth,
 * and above it by at most the lightest count when it came in, which is at most the day's overflow
 * divided by `capacity`. The writer compares a newcomer's estimate with the day's lightest row:
 * a source busier than that row takes it over (planDay, below). In this process's memory only. Not
 * lru-cache: its bound drops the least recently seen, where this keeps the heaviest with a stated
 * error (ADR 057).
 */
export class OverflowSketch {
  readonly #counts = new Map<string, number>()

  constructor(readonly capacity = OVERFLOW_SOURCES) {}

  /** The weight `name` has put under (other) here today: at least the truth, 0 when never seen. */
  estimate(name: string): number {
    return this.#counts.get(name) ?? 0
  }

  add(name: string, weight: number): void {
    const known = this.#counts.get(name)
    if (known !== undefined) {
      this.#counts.set(name, known + weight)
      return
    }
    let floor = 0
    if (this.#counts.size >= this.capacity) {
      let lightest: string | undefined
      for (const [other, count] of this.#counts)
        if (lightest === undefined || count < floor) [lightest, floor] = [other, count]
      if (lightest !== undefined) this.#counts.delete(lightest)
    }
    this.#counts.set(name, floor + weight)
  }

  /** Its row taken: what it had under (other) stays there, and its row's counts are its own. */
  forget(name: string): void {
    this.#counts.delete(name)
  }
}

/** What one write does to one day: rows to add to, rows taken over, and what went to (other). */
export interface DayPlan {
  rows: Tally[]
  takenOver: SourceKey[]
  /** Sources counted under (other) by this write, with their weight: for the overflow sketch. */
  overflow: [string, number][]
  /** Sources that got a row by this write: their overflow is forgotten. */
  named: string[]
}

/** A named row of the day: in the table already, or added by this write. */
export interface Row {
  key: SourceKey
  weight: number
  /** This write's counts for it. */
  tally?: Tally
  /** Whether the table has the row already. */
  stored: boolean
}

function lightestOf(rows: Map<string, Row>): [string, Row] | undefined {
  let lightest: [string, Row] | undefined
  for (const entry of rows) if (!lightest || entry[1].weight < lightest[1].weight) lightest = entry
  return lightest
}

/**
 * Holds a day to `maxKeysPerDay` named rows, across servers (the caller holds the day's lock):
 * a source the day has a row for adds to it; a new one takes the room left; past the cap, a new
 * source takes over the day's lightest row when it is busier than that row (its weight in this
 * write, plus its Space-Saving floor, plus what this server's sketch says it put under (other)
 * today), and that row's counts move to (other); otherwise it counts under (other). Heaviest first.
 */
export function planDay(
  tallies: Tally[],
  existing: Row[],
  sketch: OverflowSketch,
  maxKeysPerDay: number,
): DayPlan {
  const rows = new Map(existing.map((row) => [keyString(row.key), row]))
  const other: Tally = { key: OTHER, visits: 0, signups: 0, floor: 0 }
  const plan: DayPlan = { rows: [], takenOver: [], overflow: [], named: [] }
  const estimate = (name: string, tally: Tally) => tally.floor + weightOf(tally) + sketch.estimate(name)
  const ordered = tallies
    .map((tally) => ({ tally, name: keyString(tally.key) }))
    .sort((a, b) => estimate(b.name, b.tally) - estimate(a.name, a.tally))
  for (const { tally, name } of ordered) {
    if (isReserved(tally.key)) {
      if (tally.key.source === OTHER.source) mergeInto(other, tally)
      else plan.rows.push(tally)
      continue
    }
    const row = rows.get(name)
    if (row) {
      row.weight += weightOf(tally)
      if (row.tally) mergeInto(row.tally, tally)
      else row.tally = tally
      continue
    }
    if (rows.size >= maxKeysPerDay) {
      const lightest = lightestOf(rows)
      if (!lightest || estimate(name, tally) <= lightest[1].weight) {
        mergeInto(other, tally)
        plan.overflow.push([name, weightOf(tally)])
        continue
      }
      const [lightName, light] = lightest
      rows.delete(lightName)
      // Its counts go to (other): the table's by the takeover, this write's with the rest.
      if (light.stored) plan.takenOver.push(light.key)
      if (light.tally) mergeInto(other, light.tally)
      plan.overflow.push([lightName, light.weight])
    }
    rows.set(name, { key: tally.key, weight: weightOf(tally), tally, stored: false })
    plan.named.push(name)
  }
  for (const row of rows.values()) if (row.tally) plan.rows.push(row.tally)
  if (weightOf(other) > 0) plan.rows.push(other)
  return plan
}
