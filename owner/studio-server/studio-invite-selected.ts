import type { Context } from 'hono'
import type { Database } from '../../server/admin/runtime'
import { previewInvite } from '../../server/admin/sending'
import { actorOf } from './studio-actor'
import {
  messageJson,
  paceJson,
  queueFromStudio,
  recipientsJson,
  SHOWN,
  type StudioInvite,
} from './studio-invite'

/** "Invite selected" takes at most this many addresses at once: a batch the owner has looked at. */
export const MAX_SELECTED = 1_000
const MAX_EMAIL = 254

const SEND_JSON = `send JSON: {"emails": ["…"]}, 1 to ${MAX_SELECTED} addresses`

/**
 * The studio's "Invite selected": the rows the owner ticked, previewed and then queued as
 * `invite EMAIL…` queues them (inviteNamed), recorded as one batch of the studio's. Only `waiting`
 * entries are invited; the others are named with the CLI's reason. Both bodies are bounded with
 * room for MAX_SELECTED addresses (body-limits.ts).
 */
export const studioInviteSelected = (db: Database, invite: StudioInvite) => ({
  preview: (c: Context) => previewSelected(c, db, invite),
  queue: (c: Context) => queueSelected(c, db, invite, false),
  // An owner's "Send anyway" past a failing preflight (studio-invite.ts queueFromStudio).
  queueAnyway: (c: Context) => queueSelected(c, db, invite, true),
})

/** The addresses in the body, each once in any letter case, or the answer that refuses the body. */
async function readEmails(c: Context): Promise<string[] | Response> {
  // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
  if (!c.req.header('content-type')?.startsWith('application/json')) return c.json({ error: SEND_JSON }, 415)
  const body = (await c.req.json().catch(() => undefined)) as { emails?: unknown } | undefined
  const given = body?.emails
  const refused = c.json({ error: SEND_JSON }, 400)
  if (!Array.isArray(given) || given.length === 0 || given.length > MAX_SELECTED) return refused
  const emails = new Map<string, string>()
  for (const email of given) {
    if (typeof email !== 'string' || email.trim() === '' || email.length > MAX_EMAIL) return refused
    emails.set(email.trim().toLowerCase(), email.trim())
  }
  return [...emails.values()]
}

async function previewSelected(c: Context, db: Database, invite: StudioInvite): Promise<Response> {
  const emails = await readEmails(c)
  if (emails instanceof Response) return emails
  const shown = await previewInvite(db, { choice: { emails }, resend: false }, invite.fallback, SHOWN)
  return c.json({
    requested: emails.length,
    count: shown.count,
    recipients: recipientsJson(shown),
    refused: shown.refused,
    unknown: shown.unknown.length,
    ...messageJson(shown),
  })
}

async function queueSelected(
  c: Context,
  db: Database,
  invite: StudioInvite,
  skip: boolean,
): Promise<Response> {
  const emails = await readEmails(c)
  if (emails instanceof Response) return emails
  const queued = await queueFromStudio(
    c,
    db,
    invite,
    {
      choice: { emails },
      resend: false,
      actor: { via: 'studio', ...actorOf(c) },
      chosenBy: `${emails.length} selected`,
    },
    skip,
  )
  if (queued instanceof Response) return queued
  return c.json({
    queued: queued.queued.length,
    refused: queued.refused,
    unknown: queued.unknown.length,
    ...paceJson(queued),
  })
}
