import { isReserved, keyString, mergeInto, OTHER, type Tally, weightOf } from './count-buffer'
import type { OverflowSketch } from './overflow-sketch'
import type { SourceKey } from './source-of'

/** What one write does to one day: rows to add to, rows taken over, and what went to (other). */
export interface DayPlan {
  rows: Tally[]
  takenOver: SourceKey[]
  /** Sources counted under (other) by this write, with their weight: for the overflow sketch. */
  overflow: [string, number][]
  /** Sources that got a row by this write: their overflow is forgotten. */
  named: string[]
}

/** A named row of the day: in the table already, or added by this write. */
export interface Row {
  key: SourceKey
  weight: number
  /** This write's counts for it. */
  tally?: Tally
  /** Whether the table has the row already. */
  stored: boolean
}

function lightestOf(rows: Map<string, Row>): [string, Row] | undefined {
  let lightest: [string, Row] | undefined
  for (const entry of rows) if (!lightest || entry[1].weight < lightest[1].weight) lightest = entry
  return lightest
}

/**
 * Holds a day to `maxKeysPerDay` named rows, across servers (the caller holds the day's lock):
 * a source the day has a row for adds to it; a new one takes the room left; past the cap, a new
 * source takes over the day's lightest row when it is busier than that row (its weight in this
 * write, plus its Space-Saving floor, plus what this server's sketch says it put under (other)
 * today), and that row's counts move to (other); otherwise it counts under (other). Heaviest first.
 */
export function planDay(
  tallies: Tally[],
  existing: Row[],
  sketch: OverflowSketch,
  maxKeysPerDay: number,
): DayPlan {
  const rows = new Map(existing.map((row) => [keyString(row.key), row]))
  const other: Tally = { key: OTHER, visits: 0, signups: 0, floor: 0 }
  const plan: DayPlan = { rows: [], takenOver: [], overflow: [], named: [] }
  const estimate = (name: string, tally: Tally) => tally.floor + weightOf(tally) + sketch.estimate(name)
  const ordered = tallies
    .map((tally) => ({ tally, name: keyString(tally.key) }))
    .sort((a, b) => estimate(b.name, b.tally) - estimate(a.name, a.tally))
  for (const { tally, name } of ordered) {
    if (isReserved(tally.key)) {
      if (tally.key.source === OTHER.source) mergeInto(other, tally)
      else plan.rows.push(tally)
      continue
    }
    const row = rows.get(name)
    if (row) {
      row.weight += weightOf(tally)
      if (row.tally) mergeInto(row.tally, tally)
      else row.tally = tally
      continue
    }
    if (rows.size >= maxKeysPerDay) {
      const lightest = lightestOf(rows)
      if (!lightest || estimate(name, tally) <= lightest[1].weight) {
        mergeInto(other, tally)
        plan.overflow.push([name, weightOf(tally)])
        continue
      }
      const [lightName, light] = lightest
      rows.delete(lightName)
      // Its counts go to (other): the table's by the takeover, this write's with the rest.
      if (light.stored) plan.takenOver.push(light.key)
      if (light.tally) mergeInto(other, light.tally)
      plan.overflow.push([lightName, light.weight])
    }
    rows.set(name, { key: tally.key, weight: weightOf(tally), tally, stored: false })
    plan.named.push(name)
  }
  for (const row of rows.values()) if (row.tally) plan.rows.push(row.tally)
  if (weightOf(other) > 0) plan.rows.push(other)
  return plan
}
