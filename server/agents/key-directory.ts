import { createPublicKey } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY, helpers, jwkToKeyID } from 'web-bot-auth'
import {
  type AgentEntry,
  type DirectoryKey,
  type DirectoryKeys,
  directorySignatureHolds,
} from './message-signature'
import type { TrustedAgent } from './trust-list'

/**
 * The keys of the agents the lab lists, fetched from their directories and kept for as long as the
 * directory's Cache-Control allows (bounded both ways). Only an agent of the trust list is ever
 * asked, and only at its own origin: the caller has looked the origin up before calling here.
 * A directory that cannot be read is remembered as such for a minute, so a signer whose directory
 * is down costs the signups that name it one fetch a minute, not one each.
 */

export interface DirectoryLimits {
  /** The whole fetch, headers and body, in milliseconds. */
  timeoutMs: number
  /** The body's size in bytes: a directory is a few keys. */
  maxBytes: number
  /** Cache-Control's lifetime, kept within [minSeconds, maxSeconds]; without one, maxSeconds / 24. */
  minSeconds: number
  maxSeconds: number
}

export const DIRECTORY_LIMITS: DirectoryLimits = {
  timeoutMs: 3000,
  maxBytes: 64 * 1024,
  minSeconds: 60,
  maxSeconds: 24 * 60 * 60,
}

const MAX_DIRECTORIES = 64

interface Held {
  keys: DirectoryKeys | undefined
  until: number
}

/** Where an entry's keys are read: a directory at its origin's well-known path, or a JWKS at its URI. */
export function directoryUrl(entry: AgentEntry, agent: TrustedAgent): string | undefined {
  const url = new URL(entry.uri)
  if (url.origin !== agent.origin) return undefined
  if (entry.type === 'jwks_uri') return url.href
  return entry.type === 'directory' ? `${agent.origin}${HTTP_MESSAGE_SIGNATURES_DIRECTORY}` : undefined
}

/** The lifetime Cache-Control gives, in seconds, within the limits. */
export function lifetimeOf(cacheControl: string | null, limits: DirectoryLimits): number {
  const directives = (cacheControl ?? '').toLowerCase()
  const maxAge = /(?:^|[,\s])(?:s-maxage|max-age)\s*=\s*"?(\d+)/.exec(directives)?.[1]
  const wanted = /no-store|no-cache/.test(directives)
    ? 0
    : maxAge === undefined
      ? limits.maxSeconds / 24
      : Number(maxAge)
  return Math.min(limits.maxSeconds, Math.max(limits.minSeconds, wanted))
}

/** The body, up to maxBytes; undefined past it. */
async function boundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** A directory's JWKS as keys by thumbprint: Ed25519 and RSA keys, the algorithms web-bot-auth signs with. */
async function keysOf(jwks: unknown): Promise<Map<string, DirectoryKey & { jwk: JsonWebKey }>> {
  const keys = new Map<string, DirectoryKey & { jwk: JsonWebKey }>()
  const listed = (jwks as { keys?: unknown })?.keys
  if (!Array.isArray(listed)) return keys
  for (const jwk of listed.slice(0, 32) as JsonWebKey[]) {
    const alg =
      jwk?.kty === 'OKP' && jwk.crv === 'Ed25519'
        ? 'ed25519'
        : jwk?.kty === 'RSA'
          ? 'rsa-pss-sha512'
          : undefined
    if (!alg) continue
    try {
      const key = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' })
      keys.set(await jwkToKeyID(jwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), { key, alg, jwk })
    } catch {
      // A key this server cannot read is one no signature can name: left out.
    }
  }
  return keys
}

/** The directories of listed agents, fetched once and kept. */
export class KeyDirectories {
  readonly #held = new LRUCache<string, Held>({ max: MAX_DIRECTORIES })
  readonly #fetching = new Map<string, Promise<Held>>()

  constructor(
    private readonly limits: DirectoryLimits = DIRECTORY_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The keys at `url` (a listed agent's, directoryUrl), from the cache or fetched; undefined when unreachable. */
  async keys(url: string): Promise<DirectoryKeys | undefined> {
    const held = this.#held.get(url)
    if (held && held.until > this.now()) return held.keys
    let fetching = this.#fetching.get(url)
    if (!fetching) {
      fetching = this.#fetch(url).finally(() => this.#fetching.delete(url))
      this.#fetching.set(url, fetching)
    }
    return (await fetching).keys
  }

  async #fetch(url: string): Promise<Held> {
    const unreachable = { keys: undefined, until: this.now() + this.limits.minSeconds * 1000 }
    try {
      const response = await fetch(url, {
        redirect: 'error',
        signal: AbortSignal.timeout(this.limits.timeoutMs),
        headers: { accept: 'application/http-message-signatures-directory+json, application/json' },
      })
      const text = response.ok ? await boundedText(response, this.limits.maxBytes) : undefined
      if (text === undefined) return this.#hold(url, unreachable)
      const keys = await keysOf(JSON.parse(text))
      if (!(await directorySignatureHolds(url, response, keys))) return this.#hold(url, unreachable)
      const seconds = lifetimeOf(response.headers.get('cache-control'), this.limits)
      return this.#hold(url, { keys, until: this.now() + seconds * 1000 })
    } catch {
      return this.#hold(url, unreachable)
    }
  }

  #hold(url: string, held: Held): Held {
    this.#held.set(url, held)
    return held
  }
}
