import { signInAddress } from '../../contract/studio-return'
import type { EntryPage as ListPage, StatusCounts } from '../../server/admin/entries'
import type { DayCount } from '../../server/admin/funnel'
import type { CheckLine } from '../../server/admin/sending'
import { type Filters, filtersQuery, type ListView, type Sort, sortQuery } from './filters'

/**
 * The studio server's JSON API (owner/team-studio/studio-routes.ts). On the local studio, the link's
 * token arrives in the URL's fragment, which no request carries, and opens a session once; the
 * session's token stays in this tab (sessionStorage, so a reload keeps it; never a cookie, which
 * every port on 127.0.0.1 would receive) and goes out as `Authorization: Bearer`.
 */

export type Range = '30' | '90' | 'all'

export interface Summary {
  total: number
  /** How many entries have each status. */
  statuses: StatusCounts
  days: DayCount[]
  /** The sources the list's entries came from, alphabetical, for the filter; more exist when moreSources. */
  sources: string[]
  moreSources: boolean
  /** The team's tags on the list, alphabetical, with how many carry each, for the tag filter. */
  tags: { tag: string; entries: number }[]
  moreTags: boolean
}

/** A page of the list as the studio's server sends it: the server's page and its size. */
export type EntryPage = ListPage & { pageSize: number }

/** Where a page of the list starts: the first page, or after or before a cursor of the studio's. */
export type PageStart = { after: string } | { before: string } | Record<string, never>

/** Where the studio is: the team studio under /studio on the site (its API too), the local one at the root. */
export const STUDIO_ROOT = window.location.pathname.startsWith('/studio/') ? '/studio' : ''

const SESSION_KEY = 'waitlist-studio-session'
let token: string | null = null
/** Why the link in the address bar opened no session, shown while there is none. */
let refused: string | null = null
let adopted: Promise<void> = Promise.resolve()

function stored(): string | null {
  try {
    return sessionStorage.getItem(SESSION_KEY)
  } catch {
    return null // storage turned off: the session lives in this page's memory only
  }
}

/** Trades the link's one-use token for a session's, kept in this tab. */
async function openSession(link: string): Promise<void> {
  const response = await fetch('/auth/local', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: link }),
    credentials: 'omit',
  })
  const answer = (await response.json().catch(() => ({}))) as { session?: string; error?: string }
  if (!answer.session) {
    refused = answer.error ?? `The studio answered ${response.status}`
    token = stored() // a reload of a used link keeps this tab's session
    return
  }
  token = answer.session
  try {
    sessionStorage.setItem(SESSION_KEY, answer.session)
  } catch {
    // kept in memory only
  }
}

/**
 * The local studio's way in: the link's token (`#token=…`) leaves the address bar at once and opens
 * one session, whose token stays in this tab; run once, before the first request.
 */
export function adoptToken(): void {
  const link = new URLSearchParams(window.location.hash.slice(1)).get('token')
  if (!link) {
    token = stored()
    return
  }
  history.replaceState(null, '', window.location.pathname + window.location.search)
  adopted = openSession(link).catch((error: unknown) => {
    refused = String(error)
  })
}

/** The studio's answer while no server runs the database: the page says so and tries again by itself. */
export class SiteStopped extends Error {}

/**
 * A batch refused because the deliverability preflight does not pass (409): the lines that hold it,
 * which the invite panels show with the way past them (an owner's "Send anyway").
 */
export class PreflightHeld extends Error {
  constructor(
    message: string,
    readonly lines: CheckLine[],
  ) {
    super(message)
  }
}

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  await adopted
  if (!token && refused) throw new Error(refused)
  const headers = new Headers(init.headers)
  if (token) headers.set('Authorization', `Bearer ${token}`)
  // The team studio's session is its cookie; the local studio's token is never one.
  const credentials = STUDIO_ROOT ? 'same-origin' : 'omit'
  const response = await fetch(`${STUDIO_ROOT}${url}`, { ...init, headers, credentials })
  if (response.ok) return response
  // Signed out meanwhile: back here, with the filters shown, once the passkey signs in again.
  if (response.status === 401 && STUDIO_ROOT)
    window.location.assign(signInAddress(`${window.location.pathname}${window.location.search}`))
  const body = (await response.json().catch(() => ({}))) as {
    error?: string
    stopped?: boolean
    preflight?: CheckLine[]
  }
  if (body.stopped) throw new SiteStopped(body.error ?? 'The site is stopped.')
  // The first of the refusal's lines: the page lays out the held checks itself.
  if (body.preflight) throw new PreflightHeld(body.error?.split('\n')[0] ?? '', body.preflight)
  throw new Error(body.error ?? `The studio answered ${response.status}`)
}

export async function send<T>(url: string, init?: RequestInit): Promise<T> {
  return (await (await call(url, init)).json()) as T
}

export function fetchSummary(range: Range): Promise<Summary> {
  return send(`/api/summary?days=${range}`)
}

/** A page of the entries whose address contains `search` and that the filters match, in `sort`'s order. */
export function fetchEntries(
  search: string,
  filters: Filters,
  sort: Sort,
  start: PageStart,
): Promise<EntryPage> {
  const query = new URLSearchParams({ q: search, ...sortQuery(sort), ...start })
  for (const [name, value] of filtersQuery(filters)) query.append(name, value)
  return send(`/api/entries?${query}`)
}

export async function removeAddress(email: string): Promise<boolean> {
  const result = await send<{ removed: boolean }>('/api/remove', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email }),
  })
  return result.removed
}

/** The same file `npm run waitlist -- export` writes. */
export const EXPORT_URL = '/api/export.csv'

/**
 * Saves the export as waitlist.csv. A plain link cannot carry the Bearer header, so the file is
 * fetched with it and handed to the browser's download from memory.
 */
export async function downloadExport(): Promise<void> {
  const file = URL.createObjectURL(await (await call(EXPORT_URL)).blob())
  const link = document.createElement('a')
  link.href = file
  link.download = 'waitlist.csv'
  link.click()
  // The download has read the file by then; the addresses leave the page's memory.
  setTimeout(() => URL.revokeObjectURL(file), 10_000)
}

/** What inviting the next N would do, before anything is sent. */
export interface InvitePreview {
  requested: number
  /** How many would be invited: the request, or fewer when fewer are waiting. */
  count: number
  /** How many of those the filters match are waiting: the ones it picks among. */
  waiting: number
  /** How many entries the filters match, whatever their status: the list's count. */
  shown: number
  filtered: boolean
  /** The first few, in the table's order. */
  recipients: { email: string; created_at: string }[]
  /** The sending server's MAIL_FROM, as it recorded it at start; null where it has none. */
  from: string | null
  subject: string
  text: string
  perMinute: number
  /** Where the last server to start cannot send: that the invitations wait for one that can, or null. */
  cannotSend: string | null
  /** Where no server has started yet, so its settings are guessed: why, or null. */
  settingsUnknown: string | null
  /** Where the beta link is the shipped placeholder, which no invitation may carry: why nothing can be sent, or null. */
  placeholder: string | null
}

/** The filters and the order of the list, as /api/entries and the invitations read them. */
function viewQuery({ filters, sort }: ListView): URLSearchParams {
  const query = filtersQuery(filters)
  for (const [name, value] of Object.entries(sortQuery(sort))) query.set(name, value)
  return query
}

/**
 * The next `count` of the entries the filters match, in the order the table shows them, as
 * `invite --next N FILTER --sort COLUMN` picks them.
 */
export function fetchInvitePreview(count: number, view: ListView): Promise<InvitePreview> {
  const query = viewQuery(view)
  query.set('count', String(count))
  return send(`/api/invite/preview?${query}`)
}

/**
 * Queues the invitations, as `npm run waitlist -- invite --next N FILTER` does; the server sends
 * them. `anyway`: an owner's "Send anyway" past a failing preflight, as `--skip-preflight`.
 */
export function queueInvitations(
  count: number,
  view: ListView,
  anyway = false,
): Promise<{ queued: number; perMinute: number; waitsForSender: boolean }> {
  return send(`/api/invite${anyway ? '/anyway' : ''}?${viewQuery(view)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ count }),
  })
}

/** The message's HTML part, for the preview's frame (it holds no address, so it needs no token). */
export const INVITE_PREVIEW_URL = `${STUDIO_ROOT}/invite-preview.html`

/**
 * "Send me a test": the next invitee's message to this address, sent by the running server.
 * `placeholder` says the beta link is still the shipped placeholder; an address that unsubscribed,
 * complained or bounced is refused (an error with the CLI's words).
 */
export function queueTestSend(
  email: string,
): Promise<{ queued: boolean; senderConfigured: boolean; placeholder: string | null }> {
  return send('/api/invite/test', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email }),
  })
}
