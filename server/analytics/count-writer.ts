import type { Logger } from '../boot/log'
import type { Database } from '../db/database'
import type { CountBuffer } from './count-buffer'
import { addCounts, finalizeDays } from './counts-sql'
import { type DailySalt, deleteOldSalts } from './daily-salt'
import { OverflowSketch } from './overflow-sketch'
import { utcDay } from './utc-day'

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
  // Per day: the sources this server counted under (other), for the takeover of rows (counts-sql.ts).
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
