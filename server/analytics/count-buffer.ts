import type { SourceKey } from './source-of'
import { VISITOR_BITS } from './visitor-bit'

/** What a day's visits past the cap count under: visits and signups are never dropped, only their source. */
export const OTHER: SourceKey = { source: '(other)', medium: '', campaign: '' }

/** Signups that came with no counted page visit: API calls, scripts, headless browsers (not MCP: `mcp`). */
export const NO_VISIT: SourceKey = { source: '(api)', medium: '', campaign: '' }

/** One source's counts for one day, since the last write. */
export interface Tally {
  key: SourceKey
  visits: number
  signups: number
  /** The visitors' bits (visitor-bit.ts), made when the first visitor is counted. */
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
 * The write buffer (after Plausible's ingestion/write_buffer.ex): counts added in memory on the
 * request path and taken out, every few seconds, by one write. Memory is bounded whatever clients
 * send: at most `maxKeysPerDay` sources (with their media and campaigns) a day, kept by
 * Space-Saving (Metwally et al., 2005): a new source takes the place of the lightest, whose counts
 * move to `(other)`, so the heaviest stay named (any source with more than 1/maxKeysPerDay of a
 * write's weight keeps its name).
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
