import type { Context } from 'hono'
import { isRole, ROLES } from '../../contract/team-roles'
import { readAudit, recordAudit } from '../../server/admin/audit'
import { emailProblem } from '../../server/admin/basics'
import type { Database } from '../../server/admin/runtime'
import {
  addPasskey,
  endOwnSession,
  listPasskeys,
  listSessions,
  type RelyingParty,
  registrationOptions,
  removePasskey,
  renamePasskey,
} from '../../server/admin/sign-in'
import {
  addMember,
  enrolmentLink,
  listMembers,
  newLink,
  removeMember,
  setRole,
  type TeamChange,
} from '../../server/admin/team'
import { actorOf } from '../studio-server/studio-actor'
import { passkeyName } from './auth-routes'

export interface TeamRouteDeps {
  db: Database
  relyingParty: () => RelyingParty
}

/** A page of the Activity record: newest first. */
const ACTIVITY_PAGE = 50

async function body(c: Context): Promise<Record<string, unknown>> {
  if (!c.req.header('content-type')?.startsWith('application/json')) return {}
  const read = (await c.req.json().catch(() => undefined)) as unknown
  return read && typeof read === 'object' ? (read as Record<string, unknown>) : {}
}

const text = (value: unknown, max: number) =>
  typeof value === 'string' && value.trim() !== '' && value.length <= max ? value.trim() : undefined

/**
 * The team studio's own API (its rows, with the role each needs, are in studio-routes.ts): who is
 * signed in, the record (read only: no route changes it), the team for owners, and each member's
 * own passkeys and sessions. Their bodies are bounded by the studio's app (body-limits.ts).
 */
export function teamHandlers(deps: TeamRouteDeps) {
  const { db } = deps
  return {
    me: (c: Context) => {
      const { email, role } = c.get('member')
      return c.json({ email, role })
    },
    activity: async (c: Context) => {
      const after = c.req.query('after')
      if (after !== undefined && !/^\d{1,18}$/.test(after)) return c.json({ error: 'after: a number' }, 400)
      return c.json(await readAudit(db, { after, limit: ACTIVITY_PAGE }))
    },
    team: async (c: Context) => c.json({ members: await listMembers(db), roles: ROLES }),
    add: async (c: Context) => {
      const given = await body(c)
      const email = text(given.email, 254) ?? ''
      const problem = emailProblem(email)
      if (problem) return c.json({ error: problem }, 400)
      if (!isRole(given.role)) return c.json({ error: `role: ${ROLES.join(', ')}` }, 400)
      return answer(c, deps, email, await addMember(db, actorOf(c), email, given.role))
    },
    link: async (c: Context) => {
      const email = text((await body(c)).email, 254) ?? ''
      return answer(c, deps, email, await newLink(db, actorOf(c), email))
    },
    role: async (c: Context) => {
      const given = await body(c)
      const email = text(given.email, 254) ?? ''
      if (!isRole(given.role)) return c.json({ error: `role: ${ROLES.join(', ')}` }, 400)
      return answer(c, deps, email, await setRole(db, actorOf(c), email, given.role))
    },
    remove: async (c: Context) => {
      const email = text((await body(c)).email, 254) ?? ''
      return answer(c, deps, email, await removeMember(db, actorOf(c), email))
    },
  }
}

/** A team change's answer: done (with the enrolment link to hand over, for add and link), or why not. */
function answer(c: Context, deps: TeamRouteDeps, email: string, change: TeamChange): Response {
  if (!change.done) return c.json({ error: change.reason }, 409)
  const link = change.token && enrolmentLink(deps.relyingParty().origin, change.token)
  return c.json({
    done: true,
    email,
    ...(link ? { link } : {}),
    ...(change.ended ? { ended: change.ended } : {}),
  })
}

/** A member's own passkeys: list, add another, name, remove (never the last). */
export function passkeyHandlers({ db, relyingParty }: TeamRouteDeps) {
  const owner = async (c: Context) => {
    const { memberId, email } = c.get('member')
    const [row] = await db.query<{ userHandle: Buffer }>(
      'select user_handle as "userHandle" from private.team_members where id = $1::bigint',
      [memberId],
    )
    return { memberId, email, userHandle: row?.userHandle ?? Buffer.alloc(0) }
  }
  return {
    list: async (c: Context) => c.json({ passkeys: await listPasskeys(db, c.get('member').memberId) }),
    options: async (c: Context) => c.json(await registrationOptions(db, relyingParty(), await owner(c))),
    verify: async (c: Context) => {
      const given = await body(c)
      const mine = await listPasskeys(db, c.get('member').memberId)
      const name = passkeyName(given.name, `Passkey ${mine.length + 1}`)
      const added = await db.transaction(async (tx) => {
        const outcome = await addPasskey(tx, relyingParty(), await owner(c), {
          response: given.response,
          name,
        })
        if (outcome.ok) {
          await recordAudit(tx, actorOf(c), { action: 'passkey add', detail: name })
        }
        return outcome
      })
      if (!added.ok) return c.json({ error: 'The passkey could not be added. Try again.' }, 400)
      return c.json({ added: name })
    },
    rename: async (c: Context) => {
      const given = await body(c)
      const id = text(given.id, 1400)
      const name = text(given.name, 60)
      if (!id || !name) return c.json({ error: 'a passkey and a name of 1 to 60 characters' }, 400)
      const done = await renamePasskey(db, actorOf(c), c.get('member').memberId, id, name)
      return done ? c.json({ renamed: name }) : c.json({ error: 'No passkey of yours has that id.' }, 404)
    },
    remove: async (c: Context) => {
      const id = text((await body(c)).id, 1400)
      if (!id) return c.json({ error: 'which passkey?' }, 400)
      const outcome = await removePasskey(db, actorOf(c), c.get('member').memberId, id)
      if (outcome === 'last')
        return c.json(
          { error: 'Keep one passkey: without it you could not sign in. Add another first.' },
          409,
        )
      if (outcome === 'unknown') return c.json({ error: 'No passkey of yours has that id.' }, 404)
      return c.json({ removed: true, ...outcome })
    },
  }
}

/**
 * A member's own sessions (a lost device's among them): where each is signed in, and ending any,
 * this browser's too. Another member's session is never listed nor ended.
 */
export function sessionHandlers({ db }: TeamRouteDeps) {
  return {
    list: async (c: Context) => c.json({ sessions: await listSessions(db, c.get('member')) }),
    end: async (c: Context) => {
      const id = text((await body(c)).id, 18)
      if (!id) return c.json({ error: 'which session?' }, 400)
      const device = await endOwnSession(db, actorOf(c), c.get('member').memberId, id)
      if (device === undefined) return c.json({ error: 'No session of yours has that id.' }, 404)
      return c.json({ ended: device })
    },
  }
}
