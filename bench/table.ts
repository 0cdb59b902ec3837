/** One line of the bench's table; `ok` is left out for figures without a target. */
export interface Row {
  metric: string
  value: string
  target: string
  ok?: boolean
}

/** Registers a stop function, run in reverse order when the bench ends, fails or is interrupted. */
export type Track = (cleanup: () => Promise<unknown>) => void

export function printTable(rows: Row[]) {
  const widths = [
    Math.max(6, ...rows.map((row) => row.metric.length)),
    Math.max(5, ...rows.map((row) => row.value.length)),
    Math.max(6, ...rows.map((row) => row.target.length)),
  ]
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  console.log(`${line(['metric', 'value', 'target'])} ok   |`)
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|------|`)
  for (const row of rows) {
    const mark = row.ok === undefined ? '     ' : row.ok ? 'yes  ' : 'NO   '
    console.log(`${line([row.metric, row.value, row.target])} ${mark}|`)
  }
}
