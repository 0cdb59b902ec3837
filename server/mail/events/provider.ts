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

// Unix seconds as the providers write them: digits alone, at most 12 (beyond the year 33000).
// Number() and parseInt() also read `1795882580e0`, `1795882580.0`, `+1795882580` and `0x6b0b1cc7`
// as a time, so one signed string could be split into timestamp and token at another place and
// pass again (Mailgun signs timestamp + token as one string). One time, one spelling.
const UNIX_SECONDS = /^\d{1,12}$/
// SNS's Timestamp, as SNS writes it: ISO 8601 in UTC, with its milliseconds.
const SNS_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/

/** A signed time, in Unix seconds, as its provider writes it: `unix` seconds, or SNS's `iso` form. */
export type TimeForm = 'unix' | 'iso'

const FORM_WORDS: Record<TimeForm, string> = {
  unix: 'is not 1 to 12 digits',
  iso: 'is not a time such as 2026-12-01T10:00:00.000Z',
}

/**
 * Every provider's signed timestamp, read one strict way before anything else of the request is
 * trusted: the spelling its provider writes (any other is refused), then within
 * TOLERANCE_SECONDS of now. The time in seconds, or the refusal, naming the provider as `who`.
 */
export function signedTime(
  value: unknown,
  who: string,
  form: TimeForm = 'unix',
  now = Date.now(),
): { ok: true; seconds: number } | Refusal {
  const given = typeof value === 'string' ? value : ''
  const pattern = form === 'unix' ? UNIX_SECONDS : SNS_TIME
  const seconds = !pattern.test(given)
    ? Number.NaN
    : form === 'unix'
      ? Number(given)
      : Date.parse(given) / 1000
  if (!Number.isFinite(seconds)) return refuse(401, `the ${who} timestamp ${FORM_WORDS[form]}`)
  if (Math.abs(now / 1000 - seconds) > TOLERANCE_SECONDS)
    return refuse(401, `the ${who} timestamp is more than 5 minutes off`)
  return { ok: true, seconds }
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
