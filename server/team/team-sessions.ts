import type { Role } from '../../contract/team-roles'
import { type Actor, recordAudit } from '../audit/audit-record'
import type { Database, Queryable } from '../db/database'
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
  /** This session's own id: which of the member's sessions is this browser's. */
  sessionId: string
}

/** Where a sign-in came from: the passkey that made the session, the device in a few words, the network. */
export interface SessionOrigin {
  passkeyId: string
  device: string
  network: string | undefined
}

const ALIVE = `s.last_seen_at > now() - make_interval(hours => ${IDLE_HOURS})
  and s.created_at > now() - make_interval(days => ${MAX_DAYS})`

/**
 * A new session for the member, in the caller's transaction (the sign-in and its line in the
 * record), remembering the passkey that made it: removing that passkey ends it (the foreign key's
 * cascade). Sessions that have ended are swept meanwhile. Gives the cookie's token.
 */
export async function startSession(tx: Queryable, memberId: string, origin: SessionOrigin): Promise<string> {
  const { token, hash } = newToken()
  await tx.query(
    `with swept as (delete from private.team_sessions s where not (${ALIVE}))
     insert into private.team_sessions (token_hash, member_id, passkey_id, device, network)
     values ($1, $2::bigint, $3, $4, $5::cidr)`,
    [hash, memberId, origin.passkeyId, origin.device.slice(0, 60), origin.network ?? null],
  )
  return token
}

/**
 * The member a cookie's token signs in, while the session lives; the session's idle clock starts
 * again, and its network is the request's (written at most once a minute, not on every request).
 */
export async function sessionMember(
  db: Queryable,
  token: unknown,
  network?: string,
): Promise<SessionMember | undefined> {
  if (!looksLikeToken(token)) return undefined
  const [row] = await db.query<SessionMember>(
    `with alive as (
       select m.id::text as "memberId", m.email::text as email, m.role, s.id::text as "sessionId"
         from private.team_sessions s join private.team_members m on m.id = s.member_id
        where s.token_hash = $1 and ${ALIVE}
     ), touched as (
       update private.team_sessions set last_seen_at = now(), network = coalesce($2::cidr, network)
        where token_hash = $1 and last_seen_at < now() - interval '1 minute' and exists (select from alive)
     )
     select * from alive`,
    [tokenHash(token), network ?? null],
  )
  return row
}

/** Sign-out: the session ends here, whatever the browser keeps. */
export async function endSession(db: Queryable, token: unknown): Promise<void> {
  if (!looksLikeToken(token)) return
  await db.run('delete from private.team_sessions where token_hash = $1', [tokenHash(token)])
}

/** One of a member's sessions, as their passkeys page shows it. */
export interface SessionInfo {
  id: string
  device: string
  /** The client's network as the logs show it, '' when unknown. */
  network: string
  /** UTC, to the minute. */
  signedInAt: string
  lastSeenAt: string
  /** The passkey that made it. */
  passkey: string
  /** This browser's own session. */
  current: boolean
}

const minute = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD HH24:MI')`

/** A member's live sessions, most recently seen first. */
export function listSessions(db: Queryable, member: SessionMember): Promise<SessionInfo[]> {
  return db.query<SessionInfo>(
    `select s.id::text as id, s.device, coalesce(s.network::text, '') as network,
            ${minute('s.created_at')} as "signedInAt", ${minute('s.last_seen_at')} as "lastSeenAt",
            p.name as passkey, s.id = $2::bigint as current
       from private.team_sessions s join private.team_passkeys p on p.id = s.passkey_id
      where s.member_id = $1::bigint and ${ALIVE}
      order by s.last_seen_at desc, s.id desc`,
    [member.memberId, member.sessionId],
  )
}

/**
 * A member ends one of their own sessions (another device's, or this one's), recorded with the
 * device it was. The device, or undefined when none of theirs has that id.
 */
export function endOwnSession(db: Database, actor: Actor, memberId: string, id: string) {
  if (!/^\d{1,18}$/.test(id)) return Promise.resolve(undefined)
  return db.transaction(async (tx) => {
    const [ended] = await tx.query<{ device: string }>(
      'delete from private.team_sessions where id = $1::bigint and member_id = $2::bigint returning device',
      [id, memberId],
    )
    if (ended) await recordAudit(tx, actor, { action: 'session end', detail: ended.device })
    return ended?.device
  })
}

/** Ends every session of a member (`team link`, a lost device): how many ended. */
export async function endMemberSessions(tx: Queryable, memberId: string): Promise<number> {
  const { affected } = await tx.run('delete from private.team_sessions where member_id = $1::bigint', [
    memberId,
  ])
  return affected
}
