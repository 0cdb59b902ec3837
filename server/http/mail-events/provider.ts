import type { MailEvent } from '../../waitlist/mail-events/mail-event'

/** A provider's POST as its route read it: the raw bytes (what signatures cover) and the headers. */
export interface ProviderRequest {
  body: Buffer
  header(name: string): string | undefined
}

/** What a provider's file says of one POST: its events (possibly none), or why it is refused. */
export type Verdict =
  | { ok: true; events: MailEvent[] }
  | { ok: false; status: 400 | 401 | 403 | 502; why: string }

/** Verifies one POST the way its provider signs, and maps what it reports to MailEvents. */
export type Provider = (request: ProviderRequest) => Promise<Verdict>

export const refuse = (status: 400 | 401 | 403 | 502, why: string): Verdict => ({ ok: false, status, why })
export const accept = (events: MailEvent[]): Verdict => ({ ok: true, events })

/** How old (or how far ahead) a signed timestamp may be: a replayed event is refused. */
export const TOLERANCE_SECONDS = 5 * 60

/** True when `seconds` (Unix time, as a string or number) is within the tolerance of now. */
export function timestampFresh(seconds: string | number | undefined, now = Date.now()): boolean {
  const value = Number(seconds)
  return Number.isFinite(value) && Math.abs(now / 1000 - value) <= TOLERANCE_SECONDS
}

/** The body as JSON, or undefined when it is not. */
export function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
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
