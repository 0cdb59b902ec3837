import type { Handler } from 'hono'
import { emailProblem } from '../../server/admin/basics'
import type { Database } from '../../server/admin/runtime'
import { sendTest } from '../../server/admin/sending'
import { actorOf } from './studio-actor'
import type { StudioInvite } from './studio-invite'

/**
 * The studio's "Send me a test", beside the invitation's preview: `invite --test ADDRESS` through
 * the same service, queued for the running server to send, refused in the same words for an address
 * that unsubscribed, complained or bounced. Adds nobody; its links change nothing.
 */
export function studioTestSend(db: Database, invite: StudioInvite): Handler {
  return async (c) => {
    // A form on another site cannot send JSON without a preflight, which gets no CORS answer.
    if (!c.req.header('content-type')?.startsWith('application/json'))
      return c.json({ error: 'send JSON: {"email": "…"}' }, 415)
    const body = (await c.req.json().catch(() => undefined)) as { email?: unknown } | undefined
    const email = typeof body?.email === 'string' ? body.email : ''
    const problem = emailProblem(email)
    if (problem) return c.json({ error: `The test needs an address to send to: ${problem}` }, 400)
    const sent = await sendTest(db, email, invite.fallback, actorOf(c))
    if ('refused' in sent) return c.json({ error: sent.reason, refused: sent.refused }, 409)
    return c.json(
      { queued: true, senderConfigured: sent.senderConfigured, placeholder: sent.placeholder },
      202,
    )
  }
}
