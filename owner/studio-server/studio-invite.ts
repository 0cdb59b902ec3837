import type { Context, Hono } from 'hono'
import type { ServerEnv } from '../../server/boot/env'
import type { Database } from '../../server/db/database'
import {
  type PreviewSettings,
  previewInvitation,
  previewSettings,
} from '../../server/mail/messages/message-preview'
import {
  isPlaceholderLink,
  placeholderNote,
  placeholderRefusal,
} from '../../server/mail/messages/reserved-names'
import { type MailSettings, NO_SENDER_YET, readMailSettings } from '../../server/mail/queue/mail-settings'
import { countWaiting, inviteNext, oldestWith } from '../../server/waitlist/invite/invitations'

/**
 * What the studio's "Invite the next N" needs of its own: nothing of the mail's. It queues, and the
 * running server sends with the settings it records at start; these are only for a preview before
 * any server has started (message-preview.ts).
 */
export interface StudioInvite {
  fallback: Pick<ServerEnv, 'SITE_URL' | 'BETA_URL' | 'PORT'>
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

const SAMPLE = 'someone@example.com'

/**
 * The studio's invite routes: a preview (who, how many, the message) that changes nothing, the
 * message's HTML part for the preview's frame (no address in it, so no token needed), and the POST
 * that queues, as `invite --next N` does.
 */
export function routeStudioInvite(app: Hono, db: Database, invite: StudioInvite): void {
  app.get('/invite-preview.html', async (c) => {
    const html = previewInvitation(await settingsOf(db, invite), SAMPLE).html
    return c.body(html, 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': PREVIEW_CSP,
    })
  })
  app.get('/api/invite/preview', (c) => preview(c, db, invite))
  app.post('/api/invite', (c) => queue(c, db, invite))
}

/** The sending server's settings as it recorded them, read afresh: a restarted server may have new ones. */
export async function settingsOf(
  db: Database,
  invite: StudioInvite,
): Promise<PreviewSettings & { canSend: boolean }> {
  const settings = await readMailSettings(db)
  return { ...previewSettings(settings, invite.fallback), canSend: settings.senderConfigured }
}

async function preview(c: Context, db: Database, invite: StudioInvite): Promise<Response> {
  const count = countOf(c.req.query('count'))
  if (count === undefined)
    return c.json({ error: `count must be a number of people, 1 to ${MAX_COUNT}` }, 400)
  // Side by side, each one statement: five reads one after another were five round trips, which a
  // database 100 ms away (hosted Postgres) made half a second before the frame was even asked for.
  const [recipients, waiting, settings] = await Promise.all([
    oldestWith(db, ['waiting'], Math.min(count, SHOWN)),
    countWaiting(db),
    settingsOf(db, invite),
  ])
  return c.json({
    requested: count,
    count: Math.min(count, waiting),
    waiting,
    recipients: recipients.map(({ email, createdAt }) => ({ email, created_at: createdAt })),
    ...messagePreview(settings, recipients[0]?.email),
  })
}

/**
 * What every preview shows beside its people: the message as the first of them gets it (a sample
 * address when there is none), From, the pace, and why it might not leave yet.
 */
export function messagePreview(settings: PreviewSettings & { canSend: boolean }, first: string | undefined) {
  const message = previewInvitation(settings, first ?? SAMPLE)
  const { betaUrl } = settings.context
  return {
    from: settings.from,
    subject: message.subject,
    text: message.text,
    perMinute: settings.perMinute,
    // Nothing is refused for it: the invitations are queued, and wait for a server that can send.
    cannotSend: settings.canSend ? null : NO_SENDER_YET,
    settingsUnknown: settings.unknown ?? null,
    // Sending is refused while the beta link is the shipped placeholder: the page says why.
    placeholder: isPlaceholderLink(betaUrl) ? placeholderNote(betaUrl) : null,
  }
}

/**
 * The sending server's settings for a queueing, or why nothing may be queued: the beta link is
 * still the shipped placeholder, which no invitation may carry.
 */
export async function settingsToQueue(
  db: Database,
  invite: StudioInvite,
): Promise<{ settings: MailSettings } | { refusal: string }> {
  const settings = await readMailSettings(db)
  const { betaUrl } = previewSettings(settings, invite.fallback).context
  return isPlaceholderLink(betaUrl) ? { refusal: placeholderRefusal(betaUrl) } : { settings }
}

/** What the page says once invitations are queued: how fast they go, or that they wait for a sender. */
export const pace = (settings: MailSettings) => ({
  perMinute: settings.message?.perMinute ?? 0,
  waitsForSender: !settings.senderConfigured,
})

async function queue(c: Context, db: Database, invite: StudioInvite): Promise<Response> {
  // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
  if (!c.req.header('content-type')?.startsWith('application/json'))
    return c.json({ error: 'send JSON: {"count": N}' }, 415)
  const body = (await c.req.json().catch(() => undefined)) as { count?: unknown } | undefined
  const count = countOf(body?.count)
  if (count === undefined)
    return c.json({ error: `count must be a number of people, 1 to ${MAX_COUNT}` }, 400)
  const ready = await settingsToQueue(db, invite)
  if ('refusal' in ready) return c.json({ error: ready.refusal }, 409)
  const { settings } = ready
  const { queued } = await inviteNext(db, count, {
    resend: false,
    messageDomain: settings.messageDomain,
    by: 'studio',
    chosenBy: `next ${count}`,
  })
  return c.json({ queued: queued.length, ...pace(settings) })
}
