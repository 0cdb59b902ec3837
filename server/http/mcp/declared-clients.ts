import { createHmac, randomBytes } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { keptText } from '../../../contract/clean-text'

/** An MCP client as it named itself: its `clientInfo` name and version, cleaned and cut. */
export interface DeclaredClient {
  name: string
  version?: string
}

const MAX_CLIENTS = 1000
const REMEMBERED_MS = 60 * 60_000
// The consent record's bounds (public.waitlist's waitlist_consent_agent check): a name, a version.
const MAX_NAME = 100
const MAX_VERSION = 40
/** A declared string as kept (keptText), or nothing when it is not a string. */
const kept = (value: unknown, max: number) => (typeof value === 'string' ? keptText(value, max) : undefined)

/** The client an `initialize`'s params (or a 2026-07-28 request's `_meta`) declare, if any. */
export function declaredClient(params: { clientInfo?: unknown } | undefined): DeclaredClient | undefined {
  const info = params?.clientInfo as { name?: unknown; version?: unknown } | undefined
  const name = kept(info?.name, MAX_NAME)
  if (!name) return undefined
  const version = kept(info?.version, MAX_VERSION)
  return version ? { name, version } : { name }
}

/**
 * The clients that declared themselves in a 2025 `initialize`, for the consent record of the tool
 * call that follows: the server keeps no session (ADR 049), so the two are matched by a keyed hash
 * of the caller's address and User-Agent, for an hour, a thousand clients at most, in this
 * process's memory only (as analytics' McpClients, which counts only while COUNT_SOURCES is on; a
 * consent record is kept whatever counting does). A call that reaches another server, or comes
 * later, records the door with no agent. A 2026-07-28 call declares itself in its own `_meta`.
 */
export class DeclaredClients {
  // A key of this process's own: the hashes mean nothing outside it, and nothing here is written.
  readonly #key = randomBytes(32)
  readonly #clients = new LRUCache<string, { client: DeclaredClient; at: number }>({ max: MAX_CLIENTS })

  #caller(address: string, userAgent: string): string {
    return createHmac('sha256', this.#key).update(`${address}\n${userAgent}`).digest('base64url')
  }

  remember(address: string, userAgent: string, client: DeclaredClient, now = Date.now()): void {
    this.#clients.set(this.#caller(address, userAgent), { client, at: now })
  }

  recall(address: string, userAgent: string, now = Date.now()): DeclaredClient | undefined {
    const caller = this.#caller(address, userAgent)
    const known = this.#clients.get(caller)
    if (!known) return undefined
    if (now - known.at <= REMEMBERED_MS) return known.client
    this.#clients.delete(caller)
    return undefined
  }
}
