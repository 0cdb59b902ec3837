/** Sources a server remembers a day's overflow for: a few hundred KB at most (names ≤ 302 characters). */
export const OVERFLOW_SOURCES = 1000

/**
 * How much weight (visits and signups) each source this server counted under `(other)` today has
 * put there, by Space-Saving (Metwally et al., 2005): `capacity` sources at most; a new one takes
 * the place of the lightest and starts from its count. So an estimate is never below the truth,
 * and above it by at most the lightest count when it came in, which is at most the day's overflow
 * divided by `capacity`. The writer compares a newcomer's estimate with the day's lightest row:
 * a source busier than that row takes it over (counts-sql.ts). In this process's memory only.
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
