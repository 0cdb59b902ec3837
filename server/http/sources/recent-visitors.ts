const WINDOW_MS = 5000
const MAX_REMEMBERED = 10_000

/**
 * The visitor bits of the last few seconds' page loads, by day, address and User-Agent, so that a
 * client loading the page again and again (a reload, a crawler posing as a browser, a flood) costs a
 * lookup rather than a hash each time. In this process's memory only, for five seconds at most and
 * ten thousand clients at most, then forgotten in bulk; nothing of it is ever written.
 */
export class RecentVisitors {
  readonly #bits = new Map<string, number>()
  #since = Number.NEGATIVE_INFINITY

  bitOf(day: string, address: string, userAgent: string, now: number, hash: () => number): number {
    if (now - this.#since >= WINDOW_MS || this.#bits.size >= MAX_REMEMBERED) {
      this.#bits.clear()
      this.#since = now
    }
    const visitor = `${day}\n${address}\n${userAgent}`
    let bit = this.#bits.get(visitor)
    if (bit === undefined) {
      bit = hash()
      this.#bits.set(visitor, bit)
    }
    return bit
  }
}
