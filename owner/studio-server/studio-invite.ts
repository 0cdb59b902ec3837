import type { Context, Hono } from 'hono'
import type { Database } from '../../server/db/database'
import { type MailTransportConfig, NO_SMTP_URL } from '../../server/mail/mail-secrets'
import type { MessageContext } from '../../server/waitlist/invitations/compose-message'
import { countWaiting, inviteNext, oldestWith } from '../../server/waitlist/invitations/queue-invitations'
import { previewInvitation } from '../cli/message-preview'

/** What the studio's "Invite the next N" needs: how to send (or that it cannot), and the preview's links. */
export interface StudioInvite {
  mail: MailTransportConfig
  context: MessageContext
  perMinute: number
}

/** The frame the preview is shown in: the message's inline styles, nothing else, only inside the studio. */
const PREVIEW_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

// The preview lists the first few people; the count says how many in all.
const SHOWN = 10
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
  const domain = invite.mail?.from.domain ?? 'example.com'
  app.get('/invite-preview.html', (c) => {
    const html = previewInvitation(invite.context, SAMPLE, domain).html
    return c.body(html, 200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': PREVIEW_CSP,
    })
  })
  app.get('/api/invite/preview', (c) => preview(c, db, invite))
  app.post('/api/invite', (c) => queue(c, db, invite))
}

async function preview(c: Context, db: Database, invite: StudioInvite): Promise<Response> {
  const count = countOf(c.req.query('count'))
  if (count === undefined)
    return c.json({ error: `count must be a number of people, 1 to ${MAX_COUNT}` }, 400)
  const recipients = await oldestWith(db, ['waiting'], Math.min(count, SHOWN))
  const waiting = await countWaiting(db)
  const message = previewInvitation(
    invite.context,
    recipients[0]?.email ?? SAMPLE,
    invite.mail?.from.domain ?? 'example.com',
  )
  return c.json({
    requested: count,
    count: Math.min(count, waiting),
    waiting,
    recipients: recipients.map(({ email, createdAt }) => ({ email, created_at: createdAt })),
    from: invite.mail?.from.header ?? null,
    subject: message.subject,
    text: message.text,
    perMinute: invite.perMinute,
    cannotSend: invite.mail ? null : NO_SMTP_URL,
  })
}

async function queue(c: Context, db: Database, invite: StudioInvite): Promise<Response> {
  // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
  if (!c.req.header('content-type')?.startsWith('application/json'))
    return c.json({ error: 'send JSON: {"count": N}' }, 415)
  const body = (await c.req.json().catch(() => undefined)) as { count?: unknown } | undefined
  const count = countOf(body?.count)
  if (count === undefined)
    return c.json({ error: `count must be a number of people, 1 to ${MAX_COUNT}` }, 400)
  if (!invite.mail) return c.json({ error: NO_SMTP_URL }, 409)
  const { queued } = await inviteNext(db, count, { resend: false, messageDomain: invite.mail.from.domain })
  return c.json({ queued: queued.length, perMinute: invite.perMinute })
}
