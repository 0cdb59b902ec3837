import { readTime } from '../../server/admin/import'

/**
 * The dates a file holds as the tool or the spreadsheet wrote them (ADR 116): ISO and Unix seconds
 * (entry-columns.ts readTime), US month-first (`10/14/2024 17:45:51`, Airtable's `3/5/2024 2:22pm`)
 * and day-first (`14/10/2024`, `14.10.2024`). A slashed date's order is the file's: `--dates`, or
 * what its first 1,000 rows show (a day above 12 on either side); a dotted date is always day-first.
 * A time without a zone is UTC, or the `--timezone` given.
 */

export type DateOrder = 'mdy' | 'dmy'

/** How the file's dates are read: their order once known, and the zone of a time without one. */
export interface DateReading {
  order: DateOrder | undefined
  /** Where the order came from, as a problem says it. */
  decided: 'flag' | 'rows' | undefined
  timeZone: string | undefined
}

const SLASHED =
  /^(\d{1,2})([/.])(\d{1,2})\2(\d{4})(?:[ T,]+(\d{1,2}):(\d\d)(?::(\d\d)(\.\d{1,6})?)?\s*([ap]\.?m\.?)?)?$/i
const ISO_WITHOUT_ZONE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d{1,6})?)?)?$/

/** What a slashed date says of the order: one of them, either, or nothing (not a slashed date). */
export function orderShown(value: string): DateOrder | 'either' | undefined {
  const [, first, mark, second] = SLASHED.exec(value.trim()) ?? []
  if (!first || !second) return undefined
  if (mark === '.') return 'dmy'
  if (Number(first) > 12) return 'dmy'
  if (Number(second) > 12) return 'mdy'
  return 'either'
}

/**
 * The order the sample's dates show (the first 1,000 rows' date cells), the more common when both
 * appear (the others are then errors of their lines), or undefined when none tells; `ambiguous` is
 * a cell that could be either, for the question to the owner.
 */
export function decideOrder(values: Iterable<string>): { order?: DateOrder; ambiguous?: string } {
  const counts = { mdy: 0, dmy: 0 }
  let ambiguous: string | undefined
  for (const value of values) {
    const shown = orderShown(value)
    if (shown === 'either') ambiguous ??= value.trim()
    else if (shown && (SLASHED.exec(value.trim())?.[2] ?? '/') === '/') counts[shown]++
  }
  if (counts.mdy === 0 && counts.dmy === 0) return { ambiguous }
  return { order: counts.dmy > counts.mdy ? 'dmy' : 'mdy', ambiguous }
}

const formats = new Map<string, Intl.DateTimeFormat>()
const offsets = new Map<string, number>()
const HOUR = 3_600_000

/** A zone's name checked: undefined when Intl knows it (Europe/Vienna), else the problem. */
export function timeZoneProblem(zone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return undefined
  } catch {
    return `--timezone ${JSON.stringify(zone)} is not a time zone (such as Europe/Vienna or America/New_York)`
  }
}

/** The zone's offset from UTC at `utc`, in ms; one Intl call per zone and hour, however many rows. */
function offsetAt(zone: string, utc: number): number {
  const key = `${zone} ${Math.floor(utc / HOUR)}`
  const known = offsets.get(key)
  if (known !== undefined) return known
  let format = formats.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formats.set(zone, format)
  }
  const part = Object.fromEntries(format.formatToParts(utc).map(({ type, value }) => [type, Number(value)]))
  const wall = Date.UTC(part.year ?? 0, (part.month ?? 1) - 1, part.day, part.hour, part.minute, part.second)
  const offset = wall - (utc - (utc % 1000))
  if (offsets.size > 100_000) offsets.clear()
  offsets.set(key, offset)
  return offset
}

/** A wall-clock time in `zone` (or UTC) as ISO 8601 UTC; undefined for a day that does not exist. */
function wallTime(
  fields: number[],
  fraction: string | undefined,
  zone: string | undefined,
): string | undefined {
  const [year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0] = fields
  const wall = Date.UTC(year, month - 1, day, hour, minute, second)
  const date = new Date(wall)
  if (
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return undefined
  const utc = zone ? wall - offsetAt(zone, wall - offsetAt(zone, wall)) : wall
  const iso = new Date(utc).toISOString()
  return fraction ? `${iso.slice(0, 19)}${fraction}Z` : iso
}

/** A slashed or dotted date (and time) in the order given. */
function slashedTime(match: RegExpExecArray, order: DateOrder, zone: string | undefined) {
  const [, first, mark, second, year, hour, minute, second_, fraction, half] = match
  const dayFirst = mark === '.' || order === 'dmy'
  let hours = Number(hour ?? 0)
  if (half) {
    if (hours < 1 || hours > 12) return undefined
    hours = (hours % 12) + (half.toLowerCase().startsWith('p') ? 12 : 0)
  }
  const [day, month] = dayFirst ? [first, second] : [second, first]
  return wallTime(
    [Number(year), Number(month), Number(day), hours, Number(minute ?? 0), Number(second_ ?? 0)],
    fraction,
    zone,
  )
}

/**
 * A date cell as ISO 8601 the database reads exactly, or the problem with it in words that follow
 * the value. `reading.order` is the file's; a slashed date against it, or one that could be either
 * while the file has none, is the line's problem.
 */
export function readDate(value: string, reading: DateReading): { time: string } | { problem: string } {
  const text = value.trim()
  const slashed = SLASHED.exec(text)
  if (slashed) {
    const shown = orderShown(text)
    const order = shown === 'either' || shown === undefined ? reading.order : shown
    if (!order) return { problem: 'could be month or day first: say which with --dates mdy or --dates dmy' }
    if (slashed[2] === '/' && shown !== 'either' && reading.order && shown !== reading.order)
      return {
        problem:
          `not a date in this file's order, ${reading.order === 'mdy' ? 'month' : 'day'} first ` +
          `(${reading.decided === 'flag' ? '--dates' : 'as its first 1,000 rows have it'}); ` +
          `--dates ${shown} reads the file ${shown === 'mdy' ? 'month' : 'day'} first`,
      }
    const time = slashedTime(slashed, order, reading.timeZone)
    return time ? { time } : { problem: 'not a date that exists' }
  }
  const local = reading.timeZone ? ISO_WITHOUT_ZONE.exec(text) : null
  if (local) {
    const [, ...parts] = local
    const time = wallTime(
      parts.slice(0, 6).map((part) => Number(part ?? 0)),
      parts[6],
      reading.timeZone,
    )
    if (time) return { time }
  }
  const time = readTime(text)
  return time ? { time } : { problem: `not ${TIME_FORMS}` }
}

export const TIME_FORMS =
  'a date or time such as 2024-09-01, 2024-09-01 09:00 (UTC), 2024-09-01T09:00:00+02:00, 09/14/2024, 14.09.2024 or Unix seconds'
