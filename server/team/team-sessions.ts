import type { Role } from '../../contract/team-roles'
import type { Queryable } from '../db/database'
import { looksLikeToken, newToken, tokenHash } from './secret-token'

/** A session ends after this long without a request… */
export const IDLE_HOURS = 12
/** …and this long after its sign-in, whatever happens. */
export const MAX_DAYS = 7

/** Who a session's browser is, as every request reads it afresh: a role changed or a member removed counts at once. */
export interface SessionMember {
  memberId: string
  email: string
  role: Role
}

const ALIVE = `s.last_seen_at > now() - make_interval(hours => ${IDLE_HOURS})
  and s.created_at > now() - make_interval(days => ${MAX_DAYS})`

/**
 * A new session for the member, in the caller's transaction (the sign-in and its line in the
 * record); sessions that have ended are swept meanwhile. Gives the cookie's token.
 */
export async function startSession(tx: Queryable, memberId: string): Promise<string> {
  const { token, hash } = newToken()
  await tx.query(
    `with swept as (delete from private.team_sessions s where not (${ALIVE}))
     insert into private.team_sessions (token_hash, member_id) values ($1, $2::bigint)`,
    [hash, memberId],
  )
  return token
}

/**
 * The member a cookie's token signs in, while the session lives; the session's idle clock starts
 * again (written at most once a minute, not on every request).
 */
export async function sessionMember(db: Queryable, token: unknown): Promise<SessionMember | undefined> {
  if (!looksLikeToken(token)) return undefined
  const [row] = await db.query<SessionMember>(
    `with alive as (
       select m.id::text as "memberId", m.email::text as email, m.role
         from private.team_sessions s join private.team_members m on m.id = s.member_id
        where s.token_hash = $1 and ${ALIVE}
     ), touched as (
       update private.team_sessions set last_seen_at = now()
        where token_hash = $1 and last_seen_at < now() - interval '1 minute' and exists (select from alive)
     )
     select * from alive`,
    [tokenHash(token)],
  )
  return row
}

/** Sign-out: the session ends here, whatever the browser keeps. */
export async function endSession(db: Queryable, token: unknown): Promise<void> {
  if (!looksLikeToken(token)) return
  await db.run('delete from private.team_sessions where token_hash = $1', [tokenHash(token)])
}
