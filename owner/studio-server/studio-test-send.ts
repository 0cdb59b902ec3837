import type { Hono } from 'hono'
import type { Database } from '../../server/db/database'
import { previewSettings } from '../../server/mail/messages/message-preview'
import { isPlaceholderLink, placeholderNote } from '../../server/mail/messages/reserved-names'
import { readMailSettings } from '../../server/mail/queue/mail-settings'
import { emailProblem } from '../../server/waitlist/admin/email-rule'
import { queueTestInvitation } from '../../server/waitlist/invite/invitations'
import type { StudioInvite } from './studio-invite'

/**
 * The studio's "Send me a test", beside the invitation's preview: `invite --test ADDRESS`, queued
 * for the running server to send (server/mail/invitations.ts), refused in the same words for an address that
 * unsubscribed, complained or bounced. Adds nobody; its links change nothing.
 */
export function routeStudioTestSend(app: Hono, db: Database, invite: StudioInvite): void {
  app.post('/api/invite/test', async (c) => {
    // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
    if (!c.req.header('content-type')?.startsWith('application/json'))
      return c.json({ error: 'send JSON: {"email": "…"}' }, 415)
    const body = (await c.req.json().catch(() => undefined)) as { email?: unknown } | undefined
    const email = typeof body?.email === 'string' ? body.email : ''
    const problem = emailProblem(email)
    if (problem) return c.json({ error: `The test needs an address to send to: ${problem}` }, 400)
    const sent = await queueTestInvitation(db, email)
    if ('refused' in sent) return c.json({ error: sent.reason, refused: sent.refused }, 409)
    const settings = await readMailSettings(db)
    const { betaUrl } = previewSettings(settings, invite.fallback).context
    const placeholder = isPlaceholderLink(betaUrl) ? placeholderNote(betaUrl) : null
    return c.json({ queued: true, senderConfigured: settings.senderConfigured, placeholder }, 202)
  })
}
