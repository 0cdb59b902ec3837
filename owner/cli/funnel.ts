import type { Database } from '../../server/db/database'
import { type FunnelBy, type FunnelRow, funnel } from '../../server/waitlist/admin/funnel'
import { columns, percent } from './sources'

/** Reads --by: source (the default) or batch; undefined when it is neither. */
export function parseBy(value: string | undefined): FunnelBy | undefined {
  if (value === undefined) return 'source'
  return value === 'source' || value === 'batch' ? value : undefined
}

const number = (value: number) => value.toLocaleString('en')

/** A step's count beside its rate of the step before it: `30 (25.0%)`. */
const step = (count: number, rate: number | null) => `${number(count)} (${percent(rate)})`

const STEP_HEADINGS = ['signups', 'confirmed', 'invited', 'joined']

function steps(row: FunnelRow): string[] {
  return [
    row.visits === undefined ? number(row.signups) : step(row.signups, row.rates.signups),
    step(row.confirmed, row.rates.confirmed),
    step(row.invited, row.rates.invited),
    step(row.joined, row.rates.joined),
  ]
}

function sourceTable(rows: readonly FunnelRow[], total: FunnelRow): string {
  const visits = (row: FunnelRow) => (row.visits === undefined ? '–' : number(row.visits))
  const table = [
    ['source', 'visits', ...STEP_HEADINGS],
    ...rows.map((row) => [row.source ?? '(none kept)', visits(row), ...steps(row)]),
    ['total', visits(total), ...steps(total)],
  ]
  return columns(table, new Set([1, 2, 3, 4, 5]))
}

function batchTable(rows: readonly FunnelRow[], total: FunnelRow): string {
  const table = [
    ['batch', 'queued (UTC)', 'by', 'chosen by', 'invited', 'joined'],
    ...rows.map((row) => [
      String(row.batch?.id ?? ''),
      row.batch?.at.slice(0, 16).replace('T', ' ') ?? '',
      row.batch?.by ?? '',
      row.batch?.chosenBy ?? '–',
      number(row.invited),
      step(row.joined, row.rates.joined),
    ]),
    ['total', '', '', '', number(total.invited), step(total.joined, total.rates.joined)],
  ]
  return columns(table, new Set([0, 4, 5]))
}

/**
 * `funnel [--by source|batch] [--days N|all] [--json]`: from visits to the beta, each step beside
 * its rate of the step before it (funnel.ts). By source: visits where counted, then the entries who
 * signed up in the window and how far each got. By batch: each `invite` run, when, by which tool,
 * how chosen, and how many of its invitees joined.
 */
export async function funnelCommand(
  db: Database,
  by: FunnelBy,
  days: number | 'all',
  json: boolean,
): Promise<number> {
  const { total, rows } = await funnel(db, by, days)
  if (json) {
    console.log(JSON.stringify({ total, rows }, null, 2))
    return 0
  }
  const range = days === 'all' ? 'the whole list' : days === 1 ? 'today' : `the last ${days} days`
  if (rows.length === 0) {
    console.log(by === 'batch' ? `No invite batches, ${range}.` : `No visits or signups, ${range}.`)
    return 0
  }
  if (by === 'batch') {
    console.log(`The funnel by batch (one invite run each), ${range} (UTC), oldest first:\n`)
    console.log(batchTable(rows, total))
    console.log('\njoined: invitees whose code the beta product redeemed (docs/invitations.md).')
    return 0
  }
  console.log(`The funnel by source, ${range} (UTC), most signups first:\n`)
  console.log(sourceTable(rows, total))
  console.log(
    '\nEach rate is of the step before it (signups of visits). Visits are counted by source ' +
      '(docs/analytics.md); (api) and mcp come with no page visit; (none kept) are entries from before ' +
      'sources were kept, or imported without one.',
  )
  return 0
}
