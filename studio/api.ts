/** The studio server's JSON API (scripts/studio/studio-app.ts); the token travels as a cookie. */

export interface Entry {
  email: string
  created_at: string
}

export interface DayCount {
  day: string
  count: number
}

export type Range = '30' | '90' | 'all'

export interface Summary {
  total: number
  days: DayCount[]
}

export interface EntryPage {
  entries: Entry[]
  matching: number
  page: number
  pageSize: number
}

async function send<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { credentials: 'same-origin', ...init })
  const body = (await response.json().catch(() => ({}))) as T & { error?: string }
  if (!response.ok) throw new Error(body.error ?? `The studio answered ${response.status}`)
  return body
}

export function fetchSummary(range: Range): Promise<Summary> {
  return send(`/api/summary?days=${range}`)
}

export function fetchEntries(search: string, page: number): Promise<EntryPage> {
  return send(`/api/entries?${new URLSearchParams({ q: search, page: String(page) })}`)
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
