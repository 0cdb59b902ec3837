import {
  DEFAULT_FUNNEL_WINDOW,
  FUNNEL_WINDOWS,
  type FunnelWindow,
  funnelWindowName,
  isFunnelWindow,
} from '../../contract/funnel-windows'
import { type FunnelBy, type FunnelRow, funnel } from '../../server/admin/funnel'
import type { Database } from '../../server/admin/runtime'
import { columns, percent } from './sources'

/** Reads --by: source (the default) or batch; undefined when it is neither. */
export function parseBy(value: string | undefined): FunnelBy | undefined {
  if (value === undefined) return 'source'
  return value === 'source' || value === 'batch' || value === 'agent' ? value : undefined
}

/** Reads --days: one of the studio's windows (30, 90, all), the whole list by default. */
export function parseFunnelWindow(value: string | undefined): FunnelWindow | undefined {
  if (value === undefined) return DEFAULT_FUNNEL_WINDOW
  return isFunnelWindow(value) ? value : undefined
}

export const FUNNEL_WINDOW_CHOICES = FUNNEL_WINDOWS.join(', ')

const number = (value: number) => value.toLocaleString('en')

/** A step's count beside its rate of the step before it: `30 (25.0%)`. */
const step = (count: number, rate: number | null) => `${number(count)} (${percent(rate)})`

const STEP_HEADINGS = ['signups', 'confirmed', 'invited', 'joined']

/** How the CLI and the studio name the row of signups made with no counted page visit. */
export const NO_VISIT_ROW = 'no visit counted'

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
    ...rows.map((row) => [
      row.kind === 'no-visit' ? NO_VISIT_ROW : (row.source ?? ''),
      visits(row),
      ...steps(row),
    ]),
    ['total', visits(total), ...steps(total)],
  ]
  return columns(table, new Set([1, 2, 3, 4, 5]))
}

/** An agent's row: who, "(verified)" for a signature that held; the entries no agent made last. */
function agentTable(rows: readonly FunnelRow[], total: FunnelRow): string {
  const who = (row: FunnelRow) =>
    row.agent?.name ? `${row.agent.name}${row.agent.verified ? ' (verified)' : ''}` : '(no agent)'
  const table = [
    ['agent', ...STEP_HEADINGS],
    ...rows.map((row) => [who(row), ...steps(row)]),
    ['total', ...steps(total)],
  ]
  return columns(table, new Set([1, 2, 3, 4]))
}

/** A batch's people, and how many of them were erased since (still counted, as the record counts them). */
export const invitedWords = (invited: number, erased: number) =>
  erased > 0 ? `${number(invited)} (${number(erased)} erased since)` : number(invited)

function batchTable(rows: readonly FunnelRow[], total: FunnelRow): string {
  const erased = rows.reduce((all, row) => all + (row.batch?.erased ?? 0), 0)
  const table = [
    ['batch', 'queued (UTC)', 'by', 'chosen by', 'invited', 'joined'],
    ...rows.map((row) => [
      String(row.batch?.id ?? ''),
      row.batch?.at.slice(0, 16).replace('T', ' ') ?? '',
      row.batch?.by ?? '',
      row.batch?.chosenBy ?? '–',
      invitedWords(row.invited, row.batch?.erased ?? 0),
      step(row.joined, row.rates.joined),
    ]),
    ['total', '', '', '', invitedWords(total.invited, erased), step(total.joined, total.rates.joined)],
  ]
  return columns(table, new Set([0, 4, 5]))
}

/**
 * `funnel [--by source|batch] [--days 30|90|all] [--json]`: from visits to the beta, each step
 * beside its rate of the step before it, counting people (funnel.ts), over the studio's windows and
 * by default, as it, the whole list. By source: visits where counted, the entries who signed up on
 * them, then one row of those with no counted visit. By batch: each `invite` run, when, by which
 * tool, how chosen, and the people it counts (each in one batch), of whom who joined.
 */
export async function funnelCommand(
  db: Database,
  by: FunnelBy,
  window: FunnelWindow,
  json: boolean,
): Promise<number> {
  const result = await funnel(db, by, window)
  if (json) {
    console.log(JSON.stringify(result, null, 2))
    return 0
  }
  const { total, rows } = result
  const range = funnelWindowName(window)
  if (rows.length === 0) {
    console.log(by === 'batch' ? `No invite batches, ${range}.` : `No visits or signups, ${range}.`)
    return 0
  }
  if (by === 'batch') {
    console.log(`The funnel by batch (one invite run each), ${range} (UTC), oldest first:\n`)
    console.log(batchTable(rows, total))
    console.log(
      '\nEach person counts once, in one batch: the one whose invitation they redeemed, else their ' +
        'latest (a resend moves them to its batch), and still counts once erased, as the record ' +
        'counts the batch. joined: the beta product redeemed their code (docs/invitations.md).',
    )
    return 0
  }
  if (by === 'agent') {
    console.log(`The funnel by agent, ${range} (UTC), verified agents first:\n`)
    console.log(agentTable(rows, total))
    console.log(
      '\n(verified): a Web Bot Auth signature that held, from an agent SIGNATURE_AGENTS lists; ' +
        'any other name is what the program declared (docs/agents.md).',
    )
    return 0
  }
  console.log(`The funnel by source, ${range} (UTC), most signups first:\n`)
  console.log(sourceTable(rows, total))
  console.log(
    `\nEach rate is of the step before it. The signups' rate is the conversion, signups per visit, as ` +
      '`sources` gives it. Signups are a rate of visits only where they were made on ' +
      `a counted page visit (${number(total.signupsOnVisits ?? 0)} of ${number(total.signups)}), which ` +
      `is the total's rate too. "${NO_VISIT_ROW}": signups through the API, scripts and headless ` +
      'browsers, agents (MCP, and the WebMCP tool with answers), imports, and entries kept without a ' +
      'source. Visits are counted by source (docs/analytics.md).',
  )
  return 0
}
