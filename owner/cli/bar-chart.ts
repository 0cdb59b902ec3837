import type { DayCount } from '../../server/admin/funnel'

// Eighth blocks, so a bar's length is exact to an eighth of a character.
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

function bar(count: number, max: number, width: number): string {
  if (count === 0) return ''
  // A day with any signup shows at least a sliver, however tall the busiest day.
  const eighths = Math.max(1, Math.round((count / max) * width * 8))
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]
}

/** One line per day: the day, a bar scaled to the busiest day, the count. */
export function renderBarChart(days: readonly DayCount[], width = 40): string {
  const max = Math.max(1, ...days.map((day) => day.count))
  const digits = String(max).length
  return days
    .map((day) =>
      `${day.day}  ${String(day.count).padStart(digits)}  ${bar(day.count, max, width)}`.trimEnd(),
    )
    .join('\n')
}
