/**
 * The entries an agent made (issue 67): `--agent NAME` and `--agent-verified`, for `list`, `count`,
 * `export`, `invite --next` and the studio's filter, read from the consent record's agent
 * (public.waitlist.consent_agent, server/agents/agent-record.ts). NAME is a name a client declared,
 * or a verified agent's display name or origin (SIGNATURE_AGENTS): a program that only called
 * itself "ChatGPT agent" is found by that name, and only a verified one by the origin.
 */

const MAX_AGENT = 200

/** How a list of names reaches the SQL (entry-filter.ts's Bind): a parameter or a literal, never SQL text. */
type BindNames = (value: readonly string[], type: 'text[]') => string

/** `--agent` values as the filter compares them: trimmed, lower case; or what is wrong with one. */
export function readAgents(
  given: readonly string[] | undefined,
): { agents?: string[] } | { problem: string } {
  if (!given || given.length === 0) return {}
  const agents = given.map((name) => name.trim().toLowerCase())
  const bad = agents.find((name) => name === '' || name.length > MAX_AGENT)
  if (bad !== undefined)
    return { problem: `--agent needs a name or an origin of 1 to ${MAX_AGENT} characters, as show prints it` }
  return { agents: [...new Set(agents)] }
}

/** Any of the names: declared by the client, or a verified agent's display name or origin. */
export function agentCondition(agents: readonly string[], bind: BindNames, list: string): string {
  const agent = `${list}.consent_agent`
  const names = bind(agents, 'text[]')
  return `(lower(${agent} ->> 'name') = any(${names})
    or (${agent} @> '{"verified": true}'::jsonb
        and (lower(${agent} ->> 'signature_agent_name') = any(${names})
             or lower(${agent} ->> 'signature_agent') = any(${names}))))`
}

/** Made by an agent whose Web Bot Auth signature held (a listed agent's). */
export const verifiedAgentCondition = (list: string) => `${list}.consent_agent @> '{"verified": true}'::jsonb`
