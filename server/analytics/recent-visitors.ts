import { hash } from 'node:crypto'

const WINDOW_MS = 5000
const MAX_REMEMBERED = 10_000

/**
 * The visitor bits of the last few seconds' page loads, so that a client loading the page again and
 * again (a reload, a crawler posing as a browser, a flood) is looked up rather than hashed with the
 * day's salt each time. Kept by a digest of the day, address and User-Agent (SHA-256, 43
 * characters), never by the User-Agent itself: ten thousand entries are about a megabyte whatever
 * length clients send. In this process's memory only, for five seconds at most, then forgotten in
 * bulk; nothing of it is ever written.
 */
export class RecentVisitors {
  readonly #bits = new Map<string, number>()
  #since = Number.NEGATIVE_INFINITY

  bitOf(day: string, address: string, userAgent: string, now: number, bit: () => number): number {
    if (now - this.#since >= WINDOW_MS || this.#bits.size >= MAX_REMEMBERED) {
      this.#bits.clear()
      this.#since = now
    }
    const visitor = hash('sha256', `${day}\n${address}\n${userAgent}`, 'base64url')
    let known = this.#bits.get(visitor)
    if (known === undefined) {
      known = bit()
      this.#bits.set(visitor, known)
    }
    return known
  }
}
