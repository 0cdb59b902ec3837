import { createHash } from 'node:crypto'
import { keptText } from '../../contract/clean-text'
import type { Queryable } from '../db/database'
import type { AgentFailure, AgentProof } from './agent-record'
import { KeyDirectories, keySource } from './key-directory'
import {
  type AgentEntry,
  checkSignature,
  type SignatureInput,
  signatureAgentEntry,
  webBotAuthInput,
} from './message-signature'
import type { TrustedAgent, TrustList } from './trust-list'

/**
 * A signed request's Web Bot Auth signature (draft-ietf-webbotauth-httpsig-protocol), checked in
 * order, the cheap steps first and the database last (ADR 121):
 *   1. the signature's form: tag `web-bot-auth`, `@authority` covered (and `signature-agent` when
 *      the header is sent), a keyid, a nonce, `created` and `expires`;
 *   2. its window: not yet valid past a few seconds of clock skew, or expired;
 *   3. the authority it signed is this site's own (a signature made for another site is not ours);
 *   4. the agent it names is one SIGNATURE_AGENTS lists: no other directory is ever fetched;
 *   5. the keyid is a key of that agent's directory (fetched once, cached);
 *   6. the signature holds;
 *   7. its nonce is new (claimed in PostgreSQL, across servers).
 * Whatever fails, the signup goes on: only the proof is missing, and the record says why.
 */

/** Seconds a signer's clock may run ahead of this server's. */
export const CLOCK_SKEW_SECONDS = 5
/** The longest window a signature may ask for: its nonce is kept that long. */
export const MAX_WINDOW_SECONDS = 24 * 60 * 60
const MAX_NONCE = 512
const MAX_AGENT_TEXT = 200
const MAX_KEY_ID = 100

export interface SignedAgentsDeps {
  trust: TrustList
  /** Where nonces are claimed (the owner's pool). */
  db: Queryable
  /** This site's own origins (SITE_URL's and the listening address's): the authorities a signature may name. */
  siteOrigins: () => readonly string[]
  directories?: KeyDirectories
  now?: () => number
}

/**
 * A signature's nonce is accepted once within its window, by every server sharing the database
 * (private.agent_nonces, migration 20261207610000). Without it, one signed request seen on the way
 * would let anyone mark signups as that agent's until the signature expires: Web Bot Auth signs
 * the authority and the agent, not the body. Only a signature that held is claimed (a forged one
 * cannot use up an agent's nonce), in one statement that also sweeps a few expired rows, so the
 * table keeps about one window's worth without a timer. A cost on signed requests only.
 */
const CLAIM_SQL = `with swept as (
    delete from private.agent_nonces where hash in (
      select hash from private.agent_nonces
       where expires_at < now() and hash <> $1::bytea
       limit 8 for update skip locked))
  insert into private.agent_nonces (hash, expires_at) values ($1::bytea, to_timestamp($2::double precision))
  on conflict (hash) do update set expires_at = excluded.expires_at
   where private.agent_nonces.expires_at < now()
  returning true as fresh`

/** Claims the nonce until `untilSeconds` (epoch seconds); false when a server already accepted it in its window. */
export async function claimNonce(db: Queryable, nonce: string, untilSeconds: number): Promise<boolean> {
  const hash = createHash('sha256').update(nonce).digest()
  const rows = await db.query<{ fresh: boolean }>(CLAIM_SQL, [hash, untilSeconds])
  return rows.length === 1
}

/** The agent a Signature-Agent header names: listed (with its entry) or kept as text. */
interface Named {
  agent?: TrustedAgent
  entry?: AgentEntry
  shown: Pick<AgentProof, 'signature_agent' | 'signature_agent_name'>
}

/** `@authority` as RFC 9421 §2.2.3 and the library compute it: host, and the port unless 80 or 443. */
function authorityOf(url: URL): string {
  const port = url.port ? Number(url.port) : undefined
  return `${url.hostname}${port && port !== 80 && port !== 443 ? `:${port}` : ''}`
}

/** Step 1 and 2: the signature's own form and window. */
function formFailure(
  input: SignatureInput | undefined,
  signsAgent: boolean,
  now: number,
): AgentFailure | undefined {
  if (input?.tag !== 'web-bot-auth' || !input.keyid) return 'bad signature'
  if (!input.components.includes('@authority')) return 'bad signature'
  if (signsAgent && !input.components.includes('signature-agent')) return 'bad signature'
  if (!input.nonce || input.nonce.length > MAX_NONCE) return 'bad signature'
  const { created, expires } = input
  if (created === undefined || expires === undefined || expires < created) return 'bad signature'
  if (expires - created > MAX_WINDOW_SECONDS) return 'bad signature'
  if (created > now / 1000 + CLOCK_SKEW_SECONDS) return 'bad signature'
  if (expires < now / 1000) return 'expired'
  return undefined
}

/** The checks of a signed request, loaded with the first one (verify-agent.ts). */
export class SignatureCheck {
  readonly #directories: KeyDirectories
  readonly #now: () => number

  constructor(private readonly deps: SignedAgentsDeps) {
    this.#directories = deps.directories ?? new KeyDirectories()
    this.#now = deps.now ?? Date.now
  }

  /** The proof a signed request carries. Never throws. */
  async proofOf(request: Request): Promise<AgentProof> {
    const now = this.#now()
    const input = webBotAuthInput(request.headers.get('signature-input') ?? '')
    const header = request.headers.get('signature-agent')
    const named = header === null ? undefined : this.#named(header, input?.label ?? '')
    const keyId = input?.keyid && keptText(input.keyid, MAX_KEY_ID)
    const proof: AgentProof = {
      verified: false,
      ...named?.shown,
      ...(keyId ? { key_id: keyId } : {}),
      checked_at: new Date(now).toISOString(),
    }
    const failure = await this.#failure(request, input, named, now).catch((): AgentFailure => 'bad signature')
    return failure ? { ...proof, failure } : { ...proof, verified: true }
  }

  #named(header: string, label: string): Named {
    const entry = signatureAgentEntry(header, label)
    const agent = entry && this.deps.trust.get(new URL(entry.uri).origin)
    if (agent)
      return { agent, entry, shown: { signature_agent: agent.origin, signature_agent_name: agent.name } }
    const text = keptText(header, MAX_AGENT_TEXT)
    return { shown: text ? { signature_agent: text } : {} }
  }

  /** Steps 1 to 7, in order: the first that fails, or undefined when the signature held. */
  async #failure(
    request: Request,
    input: SignatureInput | undefined,
    named: Named | undefined,
    now: number,
  ): Promise<AgentFailure | undefined> {
    const form = formFailure(input, named !== undefined, now)
    if (form || !input?.keyid || !input.nonce || input.expires === undefined) return form ?? 'bad signature'
    const signed = authorityOf(new URL(request.url))
    if (
      !this.deps
        .siteOrigins()
        .some((origin) => URL.canParse(origin) && authorityOf(new URL(origin)) === signed)
    )
      return 'bad signature'
    if (!named?.agent || !named.entry) return 'unlisted agent'
    const source = keySource(named.entry, named.agent)
    if (!source) return 'unknown key'
    const keys = await this.#directories.keys(source.url, source.kind)
    if (!keys) return 'directory unreachable'
    const message = { request: { method: request.method, url: request.url, headers: request.headers } }
    const outcome = await checkSignature(message, input.label, input.keyid, keys)
    if (outcome !== 'held') return outcome
    const fresh = await claimNonce(this.deps.db, input.nonce, input.expires + CLOCK_SKEW_SECONDS)
    return fresh ? undefined : 'replayed nonce'
  }
}
