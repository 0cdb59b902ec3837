import { windowStart } from '../../analytics/utc-day'
import type { Queryable } from '../../db/database'

/**
 * The funnel by agent (issue 67): the entries each agent made, from the consent record's agent
 * (server/agents/agent-record.ts), and how far they got. A verified agent is one row under its
 * display name, apart from any program that only called itself by that name: the lab counts what
 * was proved beside what was declared. Entries no agent made are one row of their own.
 */

/** The agent a funnel row counts: who (as the Agent column names it), and whether its signature held. */
export interface FunnelAgent {
  /** A verified agent's display name, else the name its client declared, else the agent its signature named; null: no agent. */
  name: string | null
  verified: boolean
}

/** Steps as funnel.ts counts them, per agent. */
export interface AgentSteps {
  agent: FunnelAgent
  signups: number
  confirmed: number
  invited: number
  joined: number
}

// Who, as contract/agent-words.ts agentWho and the studio's Agent column name it.
const WHO = `case when w.consent_agent @> '{"verified": true}'::jsonb
    then coalesce(w.consent_agent ->> 'signature_agent_name', w.consent_agent ->> 'signature_agent')
    else coalesce(w.consent_agent ->> 'name', w.consent_agent ->> 'signature_agent_name', w.consent_agent ->> 'signature_agent') end`

/**
 * Each agent's entries in the window and their steps (`steps`: funnel.ts's STEPS over `w` and `s`),
 * the verified first, then most signups first; the entries no agent made last.
 */
export async function stepsByAgent(db: Queryable, from: string | null, steps: string): Promise<AgentSteps[]> {
  const rows = await db.query<{ name: string | null; verified: boolean } & Omit<AgentSteps, 'agent'>>(
    `select ${WHO} as name, w.consent_agent @> '{"verified": true}'::jsonb as verified, ${steps}
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id
      where $1::date is null or w.created_at >= $1::date
      group by 1, 2`,
    [from],
  )
  const agentRows = rows.map(({ name, verified, ...counts }) => ({
    agent: { name, verified: verified === true },
    ...counts,
  }))
  return agentRows.sort(
    (a, b) =>
      Number(a.agent.name === null) - Number(b.agent.name === null) ||
      Number(b.agent.verified) - Number(a.agent.verified) ||
      b.signups - a.signups ||
      (a.agent.name ?? '').localeCompare(b.agent.name ?? ''),
  )
}

/** Signups one agent made from one source (the sources report's agents). */
export interface SourceAgentSignups {
  source: string
  agent: string
  verified: boolean
  signups: number
}

/**
 * The signups agents made in the sources report's window (`--days`), by source and agent, the verified
 * apart from the declared: `sources` shows them beside each source's counts. Entries no agent
 * made are left out; an entry kept without a source counts under ''.
 */
export function signupsByAgent(
  db: Queryable,
  days: number | 'all',
  now = new Date(),
): Promise<SourceAgentSignups[]> {
  const from = windowStart(days, now)
  return db.query<SourceAgentSignups>(
    `select coalesce(w.source, '') as source, ${WHO} as agent,
            w.consent_agent @> '{"verified": true}'::jsonb as verified, count(*)::int as signups
       from public.waitlist w
      where w.consent_agent is not null and ($1::date is null or w.created_at >= $1::date)
      group by 1, 2, 3
      order by 3 desc, 4 desc, 2, 1`,
    [from],
  )
}
