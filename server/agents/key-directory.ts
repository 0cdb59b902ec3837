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
 *
 * Where the keys are depends on the Signature-Agent entry's type (ADR 125): `directory`, the
 * origin's well-known directory; `jwks_uri`, a JWKS at the entry's own address; `cimd`, a Client ID
 * Metadata Document at the entry's address, whose `jwks` holds the keys or whose `jwks_uri` (at the
 * same origin) serves them. Every address is on the listed origin, so HTTPS unless the lab listed a
 * loopback origin itself.
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

/** A JWKS (a directory, or a `jwks_uri`), or a client metadata document that leads to one. */
export type KeyKind = 'jwks' | 'cimd'

/** Where an entry's keys are read, and how. */
export interface KeySource {
  url: string
  kind: KeyKind
}

/** Where an entry's keys are: undefined when its address is not on the listed agent's own origin. */
export function keySource(entry: AgentEntry, agent: TrustedAgent): KeySource | undefined {
  const url = new URL(entry.uri)
  if (url.origin !== agent.origin) return undefined
  if (entry.type === 'jwks_uri') return { url: url.href, kind: 'jwks' }
  if (entry.type === 'cimd') return { url: url.href, kind: 'cimd' }
  return { url: `${agent.origin}${HTTP_MESSAGE_SIGNATURES_DIRECTORY}`, kind: 'jwks' }
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

/**
 * A JWKS's keys by thumbprint, the keyid Web Bot Auth names a key by; a key's own `kid` names it
 * too (a directory may give its keys short ids). Ed25519 and RSA keys, the algorithms
 * web-bot-auth signs with.
 */
async function keysOf(jwks: unknown): Promise<Map<string, DirectoryKey>> {
  const keys = new Map<string, DirectoryKey>()
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
      const key: DirectoryKey = {
        key: createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }),
        alg,
      }
      keys.set(await jwkToKeyID(jwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), key)
      const kid = (jwk as { kid?: unknown }).kid
      if (typeof kid === 'string' && kid !== '' && kid.length <= 100 && !keys.has(kid)) keys.set(kid, key)
    } catch {
      // A key this server cannot read is one no signature can name: left out.
    }
  }
  return keys
}

/** A client metadata document's keys: inline (`jwks`), else where its `jwks_uri` says, on its own origin. */
type MetadataKeys = { jwks: unknown } | { jwksUri: string } | undefined

function metadataKeys(url: string, document: unknown): MetadataKeys {
  const metadata = document as { client_id?: unknown; jwks?: unknown; jwks_uri?: unknown } | null
  // A document is the client its address names (draft-ietf-oauth-client-id-metadata-document §4.1).
  if (metadata?.client_id !== url) return undefined
  if (typeof metadata.jwks === 'object' && metadata.jwks !== null) return { jwks: metadata.jwks }
  const uri = metadata.jwks_uri
  if (typeof uri !== 'string' || !URL.canParse(uri)) return undefined
  return new URL(uri).origin === new URL(url).origin ? { jwksUri: new URL(uri).href } : undefined
}

/** The directories of listed agents, fetched once and kept. */
export class KeyDirectories {
  readonly #held = new LRUCache<string, Held>({ max: MAX_DIRECTORIES })
  readonly #fetching = new Map<string, Promise<Held>>()

  constructor(
    private readonly limits: DirectoryLimits = DIRECTORY_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The keys at `url` (a listed agent's, keySource), from the cache or fetched; undefined when unreachable. */
  async keys(url: string, kind: KeyKind = 'jwks'): Promise<DirectoryKeys | undefined> {
    return (await this.#read(url, kind)).keys
  }

  async #read(url: string, kind: KeyKind): Promise<Held> {
    const key = `${kind} ${url}`
    const held = this.#held.get(key)
    if (held && held.until > this.now()) return held
    let fetching = this.#fetching.get(key)
    if (!fetching) {
      const read = kind === 'cimd' ? this.#fetchMetadata(url) : this.#fetchJwks(url)
      fetching = read
        .catch(() => this.#unreachable())
        .then((next) => this.#hold(key, next))
        .finally(() => this.#fetching.delete(key))
      this.#fetching.set(key, fetching)
    }
    return fetching
  }

  async #fetchJwks(url: string): Promise<Held> {
    const fetched = await this.#get(url)
    if (!fetched) return this.#unreachable()
    const keys = await keysOf(JSON.parse(fetched.text))
    if (!(await directorySignatureHolds(url, fetched.response, keys))) return this.#unreachable()
    return { keys, until: this.#until(fetched.response) }
  }

  /** A `cimd` entry's document, then its keys; kept no longer than the JWKS it leads to. */
  async #fetchMetadata(url: string): Promise<Held> {
    const fetched = await this.#get(url)
    const found = fetched && metadataKeys(url, JSON.parse(fetched.text))
    if (!fetched || !found) return this.#unreachable()
    const until = this.#until(fetched.response)
    if ('jwks' in found) return { keys: await keysOf(found.jwks), until }
    const jwks = await this.#read(found.jwksUri, 'jwks')
    return jwks.keys ? { keys: jwks.keys, until: Math.min(until, jwks.until) } : this.#unreachable()
  }

  /** One listed address's body within the limits: no redirect, a 2xx, in time and size. */
  async #get(url: string): Promise<{ text: string; response: Response } | undefined> {
    const response = await fetch(url, {
      redirect: 'error',
      signal: AbortSignal.timeout(this.limits.timeoutMs),
      headers: { accept: 'application/http-message-signatures-directory+json, application/json' },
    })
    const text = response.ok ? await boundedText(response, this.limits.maxBytes) : undefined
    return text === undefined ? undefined : { text, response }
  }

  #until(response: Response): number {
    return this.now() + lifetimeOf(response.headers.get('cache-control'), this.limits) * 1000
  }

  #unreachable(): Held {
    return { keys: undefined, until: this.now() + this.limits.minSeconds * 1000 }
  }

  #hold(key: string, held: Held): Held {
    this.#held.set(key, held)
    return held
  }
}
