import { createHmac, randomBytes } from 'node:crypto'

const MAX_CLIENTS = 1000
const REMEMBERED_MS = 60 * 60_000

/**
 * The names MCP clients gave in their `initialize` call, so that a later `tools/call` from the same
 * client can be counted under it. The MCP server keeps no session (ADR 013), and a tool call
 * carries no client name, so the two are matched by a keyed hash of the caller's address and
 * User-Agent, in this process's memory only, for an hour, a thousand clients at most. A call that
 * reaches another server than its `initialize` did, or comes after that hour, counts as `mcp` with
 * no client name.
 */
export class McpClients {
  // A key of this process's own: the hashes mean nothing outside it, and nothing here is written.
  readonly #key = randomBytes(32)
  readonly #names = new Map<string, { name: string; at: number }>()

  #caller(address: string, userAgent: string): string {
    return createHmac('sha256', this.#key).update(`${address}\n${userAgent}`).digest('base64url')
  }

  remember(address: string, userAgent: string, name: string, now: number): void {
    const caller = this.#caller(address, userAgent)
    this.#names.delete(caller) // re-inserted last: the Map's order is least recently seen first
    this.#names.set(caller, { name, at: now })
    for (const [oldest] of this.#names) {
      if (this.#names.size <= MAX_CLIENTS) break
      this.#names.delete(oldest)
    }
  }

  nameOf(address: string, userAgent: string, now: number): string | undefined {
    const caller = this.#caller(address, userAgent)
    const known = this.#names.get(caller)
    if (!known) return undefined
    if (now - known.at <= REMEMBERED_MS) return known.name
    this.#names.delete(caller)
    return undefined
  }
}
