const DAY_MS = 86_400_000

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
