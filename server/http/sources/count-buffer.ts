import type { SourceKey } from './source-of'
import { VISITOR_BITS } from './visitor-bit'

/** What a day's visits past the cap count under: visits and signups are never dropped, only their source. */
export const OTHER: SourceKey = { source: '(other)', medium: '', campaign: '' }

/** One source's counts for one day, since the last write. */
export interface Tally {
  key: SourceKey
  visits: number
  signups: number
  /** The visitors' bits (visitor-bit.ts), made when the first visitor is counted. */
  bits?: Uint8Array
}

/** The tallies of one write: by UTC day (YYYY-MM-DD). */
export type Taken = Map<string, Tally[]>

export function keyString(key: SourceKey): string {
  // Tags hold no control characters (source-of.ts), so a newline cannot occur inside one.
  return `${key.source}\n${key.medium}\n${key.campaign}`
}

function orInto(target: Uint8Array, source: Uint8Array): void {
  for (let index = 0; index < target.length; index++)
    target[index] = (target[index] ?? 0) | (source[index] ?? 0)
}

/**
 * The write buffer (after Plausible's ingestion/write_buffer.ex): counts added in memory on the
 * request path and taken out, every few seconds, by one write. Memory is bounded whatever clients
 * send: at most `maxKeysPerDay` sources (with their media and campaigns) a day, then `(other)`.
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
      for (const { key, visits, signups, bits } of tallies) {
        const tally = this.#tally(day, key)
        tally.visits += visits
        tally.signups += signups
        if (bits && tally.bits) orInto(tally.bits, bits)
        else if (bits) tally.bits = bits
      }
    }
  }

  #tally(day: string, key: SourceKey): Tally {
    let tallies = this.#days.get(day)
    if (!tallies) {
      tallies = new Map()
      this.#days.set(day, tallies)
    }
    let name = keyString(key)
    let tally = tallies.get(name)
    if (tally) return tally
    if (tallies.size >= this.maxKeysPerDay) {
      name = keyString(OTHER)
      tally = tallies.get(name)
      if (tally) return tally
      key = OTHER
    }
    tally = { key, visits: 0, signups: 0 }
    tallies.set(name, tally)
    return tally
  }
}
