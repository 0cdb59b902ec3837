import type { EntryStatus } from '../../contract/entry-statuses'
import type { FunnelWindow } from '../../contract/funnel-windows'
import type { EntryHistory } from '../../server/admin/entries'
import type { Funnel, FunnelBy } from '../../server/admin/funnel'
import { type InvitePreview, send } from './api'

export type { EntryHistory, Funnel, FunnelBy }

/**
 * The studio's calls for choosing a cohort (owner/studio-server): one entry's history, the funnel,
 * the team's tags and notes, and the invitation of the rows the owner ticked.
 */

/** One entry as `show EMAIL --json` prints it. */
export function fetchEntry(email: string): Promise<EntryHistory> {
  return send(`/api/entry?${new URLSearchParams({ email })}`)
}

export function fetchFunnel(by: FunnelBy, window: FunnelWindow): Promise<Funnel> {
  return send(`/api/funnel?${new URLSearchParams({ by, days: window })}`)
}

/** An entry that will not be invited, and why, in the CLI's words. */
export interface Refused {
  email: string
  status: EntryStatus
  reason: string
}

/** What inviting the selected addresses would do: the preview's fields, and who is left out. */
export type SelectedPreview = Omit<InvitePreview, 'waiting' | 'shown' | 'filtered'> & {
  refused: Refused[]
  /** Selected addresses no longer on the list (removed meanwhile). */
  unknown: number
}

const asJson = (emails: readonly string[]): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ emails }),
})

/** Gives the tag to the addresses (or takes it away), as `tag EMAIL… TAG` and `untag` do. */
export function tagAddresses(
  emails: readonly string[],
  tag: string,
  untag: boolean,
): Promise<{ tag: string; changed: number; unchanged: number; unknown: number; full: string[] }> {
  return send(untag ? '/api/untag' : '/api/tag', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ emails, tag }),
  })
}

/** Writes the entry's note, as `note EMAIL TEXT` does; '' clears it. */
export function saveNote(email: string, note: string): Promise<{ changed: boolean; note: string | null }> {
  return send('/api/note', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, note }),
  })
}

export function fetchSelectedPreview(emails: readonly string[]): Promise<SelectedPreview> {
  return send('/api/invite/selected/preview', asJson(emails))
}

/** Queues the selected addresses' invitations, as `invite EMAIL…` does (`anyway`: past a failing preflight, an owner's). */
export function queueSelected(
  emails: readonly string[],
  anyway = false,
): Promise<{
  queued: number
  refused: Refused[]
  unknown: number
  perMinute: number
  waitsForSender: boolean
}> {
  return send(`/api/invite/selected${anyway ? '/anyway' : ''}`, asJson(emails))
}
