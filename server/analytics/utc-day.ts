export const DAY_MS = 86_400_000

let cachedDay = ''
let cachedUntil = 0

/** The UTC day of a time as YYYY-MM-DD, worked out once per day rather than once per request. */
export function utcDay(now: number): string {
  if (now >= cachedUntil || now < cachedUntil - DAY_MS) {
    cachedDay = new Date(now).toISOString().slice(0, 10)
    cachedUntil = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS
  }
  return cachedDay
}

/** The first UTC day of a window of `days` days ending today; null for all of them. */
export function windowStart(days: number | 'all', now = new Date()): string | null {
  return days === 'all' ? null : utcDay(now.getTime() - (days - 1) * DAY_MS)
}
