import {
  type CampaignCounts,
  conversionOf,
  type SourceAgentSignups,
  type SourceCounts,
  signupsByAgent,
  sourcesReport,
} from '../../server/admin/funnel'
import type { Database } from '../../server/admin/runtime'
import { plural } from './plural'

export function percent(conversion: number | null): string {
  return conversion === null ? '–' : `${(conversion * 100).toFixed(1)}%`
}

function windowName(days: number | 'all'): string {
  if (days === 'all') return 'since counting began'
  return days === 1 ? 'today' : `the last ${days} days`
}

/** The window at the end of a sentence: `in the last 30 days`, `today`, `since counting began`. */
function inWindow(days: number | 'all'): string {
  return typeof days === 'number' && days > 1 ? `in ${windowName(days)}` : windowName(days)
}

const number = (value: number) => value.toLocaleString('en')

/** Rows of cells as aligned columns: text left, numbers (the columns named in `right`) right. */
export function columns(rows: string[][], right: ReadonlySet<number>): string {
  const widths = rows[0]?.map((_, index) => Math.max(...rows.map((row) => row[index]?.length ?? 0))) ?? []
  return rows
    .map((row) =>
      row
        .map((cell, index) =>
          right.has(index) ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** The sums; the conversion (signups per visit) of the page rows only (signups with no page visit have no visit). */
function totalOf(report: readonly SourceCounts[]) {
  const sum = (pick: (row: SourceCounts) => number) => report.reduce((total, row) => total + pick(row), 0)
  const visits = sum((row) => row.visits)
  const pageSignups = sum((row) => (row.kind === 'page' ? row.signups : 0))
  return {
    visits,
    visitors: sum((row) => row.visitors),
    signups: sum((row) => row.signups),
    conversion: conversionOf('page', pageSignups, visits),
  }
}

/** The table of sources, largest first, and its total. */
export function renderSources(report: readonly SourceCounts[]): string {
  const total = totalOf(report)
  const rows = [
    ['source', 'visits', 'visitors', 'signups', 'conversion'],
    ...[...report, { source: 'total', ...total }].map((row) => [
      row.source,
      number(row.visits),
      number(row.visitors),
      number(row.signups),
      percent(row.conversion),
    ]),
  ]
  return columns(rows, new Set([1, 2, 3, 4]))
}

/** The same counts by medium and campaign, for the sources whose links carried them. */
export function renderCampaigns(report: readonly SourceCounts[]): string | undefined {
  const tagged = report.flatMap((row) =>
    row.campaigns
      .filter((campaign) => campaign.medium !== '' || campaign.campaign !== '')
      .map((campaign): [string, CampaignCounts] => [row.source, campaign]),
  )
  if (tagged.length === 0) return undefined
  const rows = [
    ['source', 'medium', 'campaign', 'visits', 'visitors', 'signups'],
    ...tagged.map(([source, row]) => [
      source,
      row.medium || '–',
      row.campaign || '–',
      number(row.visits),
      number(row.visitors),
      number(row.signups),
    ]),
  ]
  return columns(rows, new Set([3, 4, 5]))
}

/** The conversion's one meaning, as the funnel's signups rate, the studio's Sources and Funnel say it. */
export const CONVERSION_NOTE = 'conversion: signups per visit, as the funnel gives it.'

export const NO_VISIT_NOTE =
  '(api) and mcp are signups with no counted page visit (scripts, API calls, headless browsers; agents): ' +
  'no conversion, and the total conversion counts page signups only.'

/** The signups agents made, summed over sources: a verified agent apart from a declared name. */
export function renderAgents(agents: readonly SourceAgentSignups[]): string | undefined {
  const byAgent = new Map<string, number>()
  for (const { agent, verified, signups } of agents) {
    const who = `${agent}${verified ? ' (verified)' : ''}`
    byAgent.set(who, (byAgent.get(who) ?? 0) + signups)
  }
  if (byAgent.size === 0) return undefined
  return columns(
    [['agent', 'signups'], ...[...byAgent].map(([who, signups]) => [who, number(signups)])],
    new Set([1]),
  )
}

/**
 * `sources [--days N|all] [--json]`: visits, visitors, signups and conversion per source, and the
 * signups agents made (each source's `agents` in JSON: {agent, verified, signups}).
 */
export async function sourcesCommand(db: Database, days: number | 'all', json: boolean): Promise<number> {
  const [report, agents] = await Promise.all([sourcesReport(db, days), signupsByAgent(db, days)])
  if (json) {
    const withAgents = report.map((row) => ({
      ...row,
      agents: agents.filter((each) => each.source === row.source).map(({ source: _, ...each }) => each),
    }))
    console.log(JSON.stringify(withAgents, null, 2))
    return 0
  }
  const range = windowName(days)
  if (report.length === 0) {
    console.log(`No visits or signups counted ${inWindow(days)}.`)
    return 0
  }
  const total = totalOf(report)
  console.log(`Visits and signups by source, ${range} (UTC), most signups first:\n`)
  console.log(renderSources(report))
  console.log(`\n${CONVERSION_NOTE}`)
  if (report.some((row) => row.kind === 'no-visit')) console.log(`\n${NO_VISIT_NOTE}`)
  const campaigns = renderCampaigns(report)
  if (campaigns) console.log(`\nBy medium and campaign:\n\n${campaigns}`)
  const byAgent = renderAgents(agents)
  if (byAgent)
    console.log(
      `\nSignups by agent ((verified): its Web Bot Auth signature held; docs/agents.md):\n\n${byAgent}`,
    )
  console.log(
    `\n${plural(total.visits, 'visit')} from ${plural(total.visitors, 'visitor')}, ` +
      `${plural(total.signups, 'signup')} ${inWindow(days)}.`,
  )
  return 0
}
