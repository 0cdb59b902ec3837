import type { Context } from 'hono'
import {
  countEntries,
  type EntryFilter,
  type EntrySort,
  filterWords,
  isEmptyFilter,
  readSort,
  sortFlag,
} from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import {
  clearBatch,
  heldWords,
  type InviteOutcome,
  type InvitePreview,
  type InviteRequest,
  type PreviewFallback,
  previewInvite,
  previewMessage,
  queueInvite,
  skippedRecord,
} from '../../server/admin/sending'
import { actorOf } from './studio-actor'
import { studioFilter } from './studio-filter'

/**
 * What the studio's invitations need of their own: nothing of the mail's. The invite service
 * queues, and the running server sends with the settings it records at start; these are only for a
 * preview before any server has started (message-preview.ts).
 */
export interface StudioInvite {
  fallback: PreviewFallback
}

/** The frame the preview is shown in: the message's inline styles, nothing else, only inside the studio. */
const PREVIEW_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

// The preview lists the first few people; the count says how many in all.
export const SHOWN = 10
const MAX_COUNT = 1_000_000

function countOf(value: unknown): number | undefined {
  const count = Number(value)
  return Number.isSafeInteger(count) && count >= 1 && count <= MAX_COUNT ? count : undefined
}

/**
 * The studio's "Invite the next N", through the invite service `invite --next N` calls, with the
 * filters the list shows above it and in its order (the query's, as /api/entries reads them): a preview (who, how
 * many, of how many shown, the message) that changes nothing, the message's HTML part for the
 * preview's frame (no address in it, so no token needed), the POST that queues, and the same POST
 * that queues although the preflight fails (`/anyway`, an owner's row in the route table).
 */
export const studioInvite = (db: Database, invite: StudioInvite) => ({
  previewHtml: async (c: Context) => {
    const html = (await previewMessage(db, invite.fallback)).html
    return c.body(html, 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': PREVIEW_CSP,
    })
  },
  preview: (c: Context) => preview(c, db, invite),
  queue: (c: Context) => queue(c, db, invite, false),
  queueAnyway: (c: Context) => queue(c, db, invite, true),
})

/** What every preview shows beside its people: the message as the first of them gets it, From, the pace, and why it might not leave yet. */
export const messageJson = (preview: InvitePreview) => ({
  from: preview.from,
  subject: preview.mail.subject,
  text: preview.mail.text,
  perMinute: preview.perMinute,
  // Nothing is refused for it: the invitations are queued, and wait for a server that can send.
  cannotSend: preview.noSender,
  settingsUnknown: preview.settingsUnknown,
  // Sending is refused while the beta link is the shipped placeholder: the page says why.
  placeholder: preview.placeholder,
})

/** The people a preview lists, as the page reads them. */
export const recipientsJson = (preview: InvitePreview) =>
  preview.shown.map(({ email, createdAt }) => ({ email, created_at: createdAt }))

/**
 * The count asked for, the list's filters and its order (the query's, as /api/entries reads them:
 * newest first unless `sort` says otherwise), or the answer that refuses them. "The next N" are the
 * first N rows the table shows.
 */
function readNext(
  c: Context,
  given: unknown,
): { count: number; filter: EntryFilter; sort: EntrySort } | Response {
  const count = countOf(given)
  if (count === undefined)
    return c.json({ error: `count must be a number of people, 1 to ${MAX_COUNT}` }, 400)
  const read = studioFilter(c)
  if ('problem' in read) return c.json({ error: read.problem }, 400)
  const order = readSort(c.req.query('sort'), c.req.query('order'))
  if ('problem' in order) return c.json({ error: order.problem }, 400)
  return { count, filter: read.filter, sort: order.sort }
}

async function preview(c: Context, db: Database, invite: StudioInvite): Promise<Response> {
  const next = readNext(c, c.req.query('count'))
  if (next instanceof Response) return next
  const { count, filter, sort } = next
  const request = { choice: { next: count, filter, sort }, resend: false }
  // How many the list shows with these filters, whatever their status: "the next 10 of the 57 shown".
  const [shown, listed] = await Promise.all([
    previewInvite(db, request, invite.fallback, SHOWN),
    countEntries(db, filter),
  ])
  return c.json({
    requested: count,
    count: shown.count,
    waiting: shown.matching,
    shown: listed,
    filtered: !isEmptyFilter(filter),
    recipients: recipientsJson(shown),
    ...messageJson(shown),
  })
}

/**
 * Queues `request` as the studio's batch, or answers why nothing was queued (409): the placeholder
 * link, or a preflight that does not pass (ADR 120), with its lines. `skip` is an owner's "Send
 * anyway": the route table lets only owners reach it (studio-routes.ts), and the batch's record
 * names the checks skipped as `invite --skip-preflight` does, with the owner as its actor (ADR 124).
 */
export async function queueFromStudio(
  c: Context,
  db: Database,
  invite: StudioInvite,
  request: InviteRequest,
  skip: boolean,
): Promise<Response | Exclude<InviteOutcome, { refusal: string }>> {
  const clearance = await clearBatch(db, request.actor.name, skip)
  if (!clearance.go)
    return c.json({ error: heldWords(clearance.lines).join('\n'), preflight: clearance.lines }, 409)
  const chosenBy = `${request.chosenBy}${skippedRecord(clearance)}`
  const outcome = await queueInvite(db, { ...request, chosenBy }, invite.fallback)
  return 'refusal' in outcome ? c.json({ error: outcome.refusal }, 409) : outcome
}

/** What the page says once invitations are queued: how fast they go, or that they wait for a sender. */
export const paceJson = (outcome: { perMinute: number; noSender: string | null }) => ({
  perMinute: outcome.perMinute,
  waitsForSender: outcome.noSender !== null,
})

async function queue(c: Context, db: Database, invite: StudioInvite, skip: boolean): Promise<Response> {
  // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
  if (!c.req.header('content-type')?.startsWith('application/json'))
    return c.json({ error: 'send JSON: {"count": N}' }, 415)
  const body = (await c.req.json().catch(() => undefined)) as { count?: unknown } | undefined
  const next = readNext(c, body?.count)
  if (next instanceof Response) return next
  const { count, filter, sort } = next
  const queued = await queueFromStudio(
    c,
    db,
    invite,
    {
      choice: { next: count, filter, sort },
      resend: false,
      actor: { via: 'studio', ...actorOf(c) },
      // As `invite --next N` would be typed for the same rows: the table's order is a --sort.
      chosenBy: [`next ${count}`, filterWords(filter), `--sort ${sortFlag(sort)}`].filter(Boolean).join(' '),
    },
    skip,
  )
  if (queued instanceof Response) return queued
  return c.json({ queued: queued.queued.length, ...paceJson(queued) })
}
