import { MAX_JSON_DEPTH, nestsTooDeep } from '../../base/json-depth'
import type { MailEvent, SignatureToken } from './mail-event'

/** A provider's POST as its route read it: the raw bytes (what signatures cover) and the headers. */
export interface ProviderRequest {
  body: Buffer
  header(name: string): string | undefined
}

/**
 * What a provider's file says of one POST: its events (possibly none) and, when its signature
 * leaves the events out, the token that must not come twice; or why it is refused.
 */
export type Verdict = { ok: true; events: MailEvent[]; token?: SignatureToken } | Refusal

export type Refusal = { ok: false; status: 400 | 401 | 403 | 502 | 503; why: string }

/** Verifies one POST the way its provider signs, and maps what it reports to MailEvents. */
export type Provider = (request: ProviderRequest) => Promise<Verdict>

export const refuse = (status: Refusal['status'], why: string): Refusal => ({ ok: false, status, why })
export const accept = (events: MailEvent[], token?: SignatureToken): Verdict => ({ ok: true, events, token })

/** How old (or how far ahead) a signed timestamp may be: a replayed event is refused. */
export const TOLERANCE_SECONDS = 5 * 60

/** True when `seconds` (Unix time, as a string or number) is within the tolerance of now. */
export function timestampFresh(seconds: string | number | undefined, now = Date.now()): boolean {
  const value = Number(seconds)
  return Number.isFinite(value) && Math.abs(now / 1000 - value) <= TOLERANCE_SECONDS
}

/**
 * The body as JSON, refused with a reason when it is not JSON or nests deeper than MAX_JSON_DEPTH.
 * The depth is checked first, in one pass without recursion: `JSON.parse` would build every level
 * of a megabyte of brackets (hundreds of MiB) before anything could refuse it, and SES and Mailgun
 * carry their signature inside the body, so theirs is read before anyone is known.
 */
export function readJson(body: Buffer): { ok: true; payload: unknown } | Refusal {
  const text = body.toString('utf8')
  if (nestsTooDeep(text)) return refuse(400, `the JSON nests deeper than ${MAX_JSON_DEPTH} levels`)
  try {
    return { ok: true, payload: JSON.parse(text) }
  } catch {
    return refuse(400, 'the body is not JSON')
  }
}

/** The body as JSON, or undefined when readJson refuses it. */
export function jsonOf(body: Buffer): unknown {
  const read = readJson(body)
  return read.ok ? read.payload : undefined
}

/** A plain object's field, whatever the payload's shape (providers' payloads are read defensively). */
export function field(value: unknown, ...path: string[]): unknown {
  let at = value
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

export const text = (value: unknown): string => (typeof value === 'string' ? value : '')
