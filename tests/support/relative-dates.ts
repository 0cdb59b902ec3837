/**
 * Dates a test writes, taken from the day it runs. The reports window their rows from the server's
 * clock (the funnel) or PostgreSQL's now() (day counts, expiry, the salts of the visitor counts), so a
 * date written by hand falls out of a window one day and a test that held fails (issue 60). A date
 * that meets no window is written in a past year instead (date-literals.test.ts keeps it so).
 */
const DAY_MS = 86_400_000

/** The UTC day `days` days from today (negative: before), as `YYYY-MM-DD`. */
export function utcDay(days = 0, from = Date.now()): string {
  return new Date(from + days * DAY_MS).toISOString().slice(0, 10)
}

/** Midnight UTC of the day `days` days from today, in milliseconds. */
export function utcMidnight(days = 0, from = Date.now()): number {
  return Date.parse(`${utcDay(days, from)}T00:00:00Z`)
}

/**
 * A moment `days` days from today at `time` (UTC), as PostgreSQL's timestamptz prints through the
 * CLI and the API: `2026-11-01T09:00:00.000000Z`.
 */
export function dayAt(days: number, time = '09:00:00'): string {
  return `${utcDay(days)}T${time}.000000Z`
}
