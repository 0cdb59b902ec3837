import type { AgentFailure, ConsentAgent } from '../../contract/agent-words'

/**
 * The agent part of an entry's consent record (public.waitlist.consent_agent, migration
 * 20261207610000; docs/privacy.md): what the client declared of itself, beside what this server
 * found of its Web Bot Auth signature. Stored as the fields that have a value; read back, every
 * field is there, null where unknown, so `show --json`, the studio, `export` and the person's copy
 * print one shape. A record from before (`{name, version}`) reads as declared: verified false.
 */

export const AGENT_FAILURES: readonly AgentFailure[] = [
  'expired',
  'unknown key',
  'bad signature',
  'replayed nonce',
  'unlisted agent',
  'directory unreachable',
]

export type { AgentFailure, ConsentAgent }

/** What the check of a signed request found (verify-agent.ts); absent when the request carried no signature. */
export interface AgentProof {
  verified: boolean
  /** A listed agent's origin, or an unlisted Signature-Agent kept as its text. */
  signature_agent?: string
  /** The listed agent's display name (SIGNATURE_AGENTS). */
  signature_agent_name?: string
  /** The signature's `keyid`: the JWK thumbprint of the key it names. */
  key_id?: string
  /** When this server checked it, ISO 8601 UTC. */
  checked_at: string
  failure?: AgentFailure
}

/** The client's own declaration: MCP clientInfo's name and version, or the page's WebMCP tool. */
export interface DeclaredAgent {
  name: string
  version?: string
}

/** What the signup's transaction stores: the declaration and the proof, whichever there are. */
export type StoredAgent = Partial<DeclaredAgent> & Partial<AgentProof>

/** The one record a door hands the signup: the declaration, then the proof if the request was signed. */
export function agentRecord(
  declared: StoredAgent | undefined,
  proof: AgentProof | undefined,
): StoredAgent | undefined {
  if (!proof) return declared
  return declared ? { ...declared, ...proof } : proof
}

/** The stored record's fields and their bounds: the table's own check (waitlist_consent_agent). */
const TEXT_FIELDS: Readonly<Record<string, number>> = {
  name: 100,
  version: 40,
  signature_agent: 200,
  signature_agent_name: 100,
  key_id: 100,
  checked_at: 40,
}

/** Why a JSON value is not a record the table keeps (an imported line's), or undefined when it is. */
export function storedAgentProblem(agent: unknown): string | undefined {
  if (typeof agent !== 'object' || agent === null || Array.isArray(agent)) return 'not a JSON object'
  for (const [field, value] of Object.entries(agent)) {
    const max = TEXT_FIELDS[field]
    if (max !== undefined) {
      if (typeof value !== 'string' || value.length < 1 || value.length > max)
        return `a ${field} not 1-${max} characters long`
    } else if (field === 'verified') {
      if (typeof value !== 'boolean') return 'a verified that is not true or false'
    } else if (field === 'failure') {
      if (!AGENT_FAILURES.includes(value as AgentFailure))
        return `a failure not one of ${AGENT_FAILURES.join(', ')}`
    } else return `a field ${JSON.stringify(field).slice(0, 40)} the record does not have`
  }
  const record = agent as StoredAgent
  if (record.verified && (!record.signature_agent || !record.key_id || record.failure))
    return 'verified without the agent and key it was verified by, or with a failure'
  return undefined
}
