import { type AgentProof, agentRecord, type StoredAgent } from './agent-record'
import type { SignatureCheck, SignedAgentsDeps } from './check-signature'

/** Whether a request is signed at all: the one look-up an unsigned signup pays. */
export const isSigned = (headers: Headers) => headers.has('signature-input')

/**
 * Web Bot Auth checked on every way in: the page's form POST, the REST insert and /mcp each ask
 * `signedAgentOf` for a request's proof (ADR 121). An unsigned request costs one header look-up.
 * The checks and their libraries (web-bot-auth, http-message-sig, structured-headers: some 4 MiB)
 * load with the first signed request, not at every start (issue 63: the idle footprint).
 */
export class SignedAgents {
  #check: Promise<SignatureCheck> | undefined

  constructor(private readonly deps: SignedAgentsDeps) {}

  /** The proof a signed request carries, or undefined when it carries no signature. Never throws. */
  async signedAgentOf(request: Request): Promise<AgentProof | undefined> {
    if (!isSigned(request.headers)) return undefined
    this.#check ??= import('./check-signature').then(({ SignatureCheck }) => new SignatureCheck(this.deps))
    return (await this.#check).proofOf(request)
  }
}

/**
 * A door's consent record with the proof of its signed request beside the client's declaration.
 * Called only for a signed request (isSigned): an unsigned one keeps the record it had.
 */
export async function withProof<Consent extends { agent?: StoredAgent }>(
  consent: Consent,
  request: Request,
  agents: SignedAgents,
): Promise<Consent> {
  return { ...consent, agent: agentRecord(consent.agent, await agents.signedAgentOf(request)) }
}
