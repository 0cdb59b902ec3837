/**
 * How an entry's agent is told, in one place for every reader: the person's own page, `show`, the
 * studio and its Agent column (ADR 121). The record itself is the server's
 * (server/agents/agent-record.ts); its shape is here so the studio's page can read it too.
 */

/** Why a signature that was present did not hold. */
export type AgentFailure =
  | 'expired'
  | 'unknown key'
  | 'bad signature'
  | 'replayed nonce'
  | 'unlisted agent'
  | 'directory unreachable'

/** An entry's `consent.agent`, as `show --json`, the studio, `export` and the person's copy print it. */
export interface ConsentAgent {
  /** The client's own declaration (MCP clientInfo; never the User-Agent). */
  name: string | null
  version: string | null
  /** True only for a Web Bot Auth signature that held, from an agent SIGNATURE_AGENTS lists. */
  verified: boolean
  /** The listed agent's origin, or an unlisted agent's Signature-Agent kept as text. */
  signature_agent: string | null
  /** The listed agent's display name. */
  signature_agent_name: string | null
  /** The JWK thumbprint the signature named. */
  key_id: string | null
  /** When the server checked the signature (UTC). */
  checked_at: string | null
  failure: AgentFailure | null
}

/** A record as stored, of any era: the fields it has (`{name, version}` before signatures were checked). */
export type StoredAgentFields = { [Field in keyof ConsentAgent]?: ConsentAgent[Field] | null }

/** A stored record as every reader prints it: every field there, null where unknown; null for none. */
export function shownAgent(stored: StoredAgentFields | null | undefined): ConsentAgent | null {
  if (!stored) return null
  return {
    name: stored.name ?? null,
    version: stored.version ?? null,
    verified: stored.verified === true,
    signature_agent: stored.signature_agent ?? null,
    signature_agent_name: stored.signature_agent_name ?? null,
    key_id: stored.key_id ?? null,
    checked_at: stored.checked_at ?? null,
    failure: stored.failure ?? null,
  }
}

/**
 * Who the agent was, in a few words: a verified agent's display name; else the name its client
 * declared (with its version), else the agent its signature named.
 */
export function agentWho(agent: ConsentAgent): string {
  if (agent.verified) return agent.signature_agent_name ?? agent.signature_agent ?? 'a signed agent'
  if (agent.name) return `${agent.name} ${agent.version ?? ''}`.trim()
  return agent.signature_agent_name ?? agent.signature_agent ?? 'a program'
}

/** The words after the agent's name on the person's page: verified, or only named. */
export const AGENT_VERIFIED = '(verified)'
export const AGENT_DECLARED = '(named by the program, not verified)'

/** "ChatGPT agent (verified)" or "Claude Code 3.1.4 (named by the program, not verified)". */
export function agentPhrase(agent: ConsentAgent): string {
  return `${agentWho(agent)} ${agent.verified ? AGENT_VERIFIED : AGENT_DECLARED}`
}

/**
 * The proof in the owner's words, after the phrase: which agent and key it was verified by, or
 * what a signature that did not hold named and why; empty for an unsigned request.
 */
export function agentProof(agent: ConsentAgent): string {
  if (agent.verified)
    return `signed by ${agent.signature_agent}, key ${agent.key_id}, checked ${agent.checked_at}`
  if (!agent.checked_at) return ''
  const named = agent.signature_agent ? ` as ${agent.signature_agent}` : ''
  return `signed${named}, not verified: ${agent.failure ?? 'not checked'}, checked ${agent.checked_at}`
}

/**
 * The studio's Agent cell, from the record as the list carries it (its JSON text, '' for none):
 * who, and "(verified)" only for a verified agent; '' for an entry no agent made.
 */
export function agentCell(json: string): string {
  if (json === '') return ''
  let stored: StoredAgentFields
  try {
    stored = JSON.parse(json) as StoredAgentFields
  } catch {
    return ''
  }
  const agent = shownAgent(stored)
  if (!agent) return ''
  return agent.verified ? `${agentWho(agent)} ${AGENT_VERIFIED}` : agentWho(agent)
}
