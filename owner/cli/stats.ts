import { countEntries } from '../../server/admin/entries'
import { signupsPerDay } from '../../server/admin/funnel'
import type { Database } from '../../server/admin/runtime'
import { renderBarChart } from './bar-chart'

/** Reads --days: a whole number of days from 1 to 3660, or `all`; undefined when it is neither. */
export function parseDays(value: string | undefined): number | 'all' | undefined {
  if (value === undefined) return 30
  if (value === 'all') return 'all'
  return /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 3660 ? Number(value) : undefined
}

/** `stats [--days N]`: signups per UTC day as a bar chart, then the total. */
export async function statsCommand(db: Database, days: number | 'all'): Promise<number> {
  const perDay = await signupsPerDay(db, days)
  const total = await countEntries(db)
  const inRange = perDay.reduce((sum, day) => sum + day.count, 0)
  const range =
    days === 'all' ? 'since the first signup' : days === 1 ? 'the last day' : `the last ${days} days`
  console.log(`Signups per day, ${range} (UTC):\n`)
  console.log(renderBarChart(perDay))
  console.log(`\n${inRange} ${days === 'all' ? range : `in ${range}`}; ${total} on the list in total.`)
  return 0
}
