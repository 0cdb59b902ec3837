import type { DayVisits, SourceAgentSignups, SourceCounts } from '../../server/admin/funnel'
import { type Range, send } from './api'

export type { DayVisits, SourceAgentSignups, SourceCounts }

/** The studio server's /api/sources: the Sources panel's rows, the chart's visits, and the signups agents made, for one range. */
export interface SourcesSummary {
  sources: SourceCounts[]
  days: DayVisits[]
  /** By source and agent, the verified apart from the declared (the CLI's `sources`). */
  agents: SourceAgentSignups[]
}

/** An agent's signups summed over sources, most first: a verified agent apart from a program that only used its name. */
export interface AgentSignups {
  agent: string
  verified: boolean
  signups: number
}

export function agentTotals(rows: readonly SourceAgentSignups[]): AgentSignups[] {
  const totals = new Map<string, AgentSignups>()
  for (const { agent, verified, signups } of rows) {
    const key = `${verified}\n${agent}`
    const total = totals.get(key) ?? { agent, verified, signups: 0 }
    total.signups += signups
    totals.set(key, total)
  }
  return [...totals.values()].sort(
    (a, b) =>
      b.signups - a.signups || Number(b.verified) - Number(a.verified) || a.agent.localeCompare(b.agent),
  )
}

export function fetchSources(range: Range): Promise<SourcesSummary> {
  return send(`/api/sources?days=${range}`)
}
