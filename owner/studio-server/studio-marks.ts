import type { Context } from 'hono'
import { readNote, readTag, setNote, tagEntries, untagEntries } from '../../server/admin/entries'
import type { Database } from '../../server/admin/runtime'
import { actorOf } from './studio-actor'

/** "Tag selected" takes as many addresses as "Invite selected" (studio-invite-selected.ts). */
const MAX_SELECTED = 1_000
const MAX_EMAIL = 254

const SEND_TAG = `send JSON: {"emails": ["…"], "tag": "…"}, 1 to ${MAX_SELECTED} addresses`
const SEND_NOTE = 'send JSON: {"email": "…", "note": "…"} ("" clears it)'

/**
 * The team's marks from the studio, through the functions `tag`, `untag` and `note` call
 * (entry-marks.ts): "Tag selected" and "Untag selected" on the rows ticked, and the note in an
 * entry's panel. All three are changes (a team studio gives them to members, not viewers). Each
 * reads only JSON, which a form on another site cannot send without a preflight that gets no CORS
 * answer, of a bounded size (body-limits.ts: "Tag selected" may send 1,000 addresses).
 */
export const studioMarks = (db: Database) => ({
  tag: (c: Context) => tagging(c, db, false),
  untag: (c: Context) => tagging(c, db, true),
  note: (c: Context) => note(c, db),
})

async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  if (!c.req.header('content-type')?.startsWith('application/json')) return undefined
  const body: unknown = await c.req.json().catch(() => undefined)
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined
}

const isEmail = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.length <= MAX_EMAIL

async function tagging(c: Context, db: Database, untag: boolean): Promise<Response> {
  const body = await jsonBody(c)
  if (!body) return c.json({ error: SEND_TAG }, 415)
  const { emails, tag } = body
  if (!Array.isArray(emails) || emails.length === 0 || emails.length > MAX_SELECTED || !emails.every(isEmail))
    return c.json({ error: SEND_TAG }, 400)
  if (typeof tag !== 'string' || tag.length > 100) return c.json({ error: SEND_TAG }, 400)
  const read = readTag(tag)
  if ('problem' in read) return c.json({ error: read.problem }, 400)
  const outcome = untag
    ? await untagEntries(db, emails, read.tag, { via: 'studio', actor: actorOf(c) })
    : await tagEntries(db, emails, read.tag, { via: 'studio', actor: actorOf(c) })
  return c.json({
    tag: read.tag,
    changed: outcome.changed.length,
    unchanged: outcome.unchanged.length,
    unknown: outcome.unknown.length,
    // Named: the owner takes a tag off these before giving them another.
    full: outcome.full,
  })
}

async function note(c: Context, db: Database): Promise<Response> {
  const body = await jsonBody(c)
  if (!body) return c.json({ error: SEND_NOTE }, 415)
  if (!isEmail(body.email) || typeof body.note !== 'string') return c.json({ error: SEND_NOTE }, 400)
  const read = readNote(body.note)
  if ('problem' in read) return c.json({ error: read.problem }, 400)
  const outcome = await setNote(db, body.email, read.note, { via: 'studio', actor: actorOf(c) })
  if (!outcome) return c.json({ error: 'No entry has this address (it may have been removed).' }, 404)
  return c.json({ changed: outcome.changed, note: read.note === '' ? null : read.note })
}
