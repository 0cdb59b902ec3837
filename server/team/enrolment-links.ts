import type { Role } from '../../contract/team-roles'
import type { Queryable } from '../db/database'
import { looksLikeToken, newToken, tokenHash } from './secret-token'

/** How long an enrolment link works: a day, for one use. */
export const ENROLMENT_HOURS = 24

/** The page a link opens; its token is in the fragment, which no request, log or Referer carries. */
export const enrolmentLink = (siteUrl: string, token: string): string =>
  `${new URL('/studio/enrol', siteUrl).href}#${token}`

/** A member an open enrolment link names. */
export interface Enrolling {
  memberId: string
  email: string
  role: Role
  userHandle: Buffer
}

/**
 * A new link for the member, in the caller's transaction: the one before (if any) stops working.
 * Gives the token, which only the link carries.
 */
export async function issueEnrolment(tx: Queryable, memberId: string): Promise<string> {
  const { token, hash } = newToken()
  await tx.run(
    `insert into private.team_enrolments (token_hash, member_id, expires_at)
     values ($1, $2::bigint, now() + make_interval(hours => $3))
     on conflict (member_id) do update set token_hash = excluded.token_hash, expires_at = excluded.expires_at`,
    [hash, memberId, ENROLMENT_HOURS],
  )
  return token
}

const ENROLLING = `select m.id::text as "memberId", m.email::text as email, m.role, m.user_handle as "userHandle"
  from private.team_enrolments e join private.team_members m on m.id = e.member_id
 where e.token_hash = $1 and e.expires_at > now()`

/** The member an open link names, or undefined (unknown, used or past its day). */
export async function enrolling(db: Queryable, token: unknown): Promise<Enrolling | undefined> {
  if (!looksLikeToken(token)) return undefined
  const [row] = await db.query<Enrolling>(ENROLLING, [tokenHash(token)])
  return row
}

/** Uses the link up, in the transaction that adds its passkey: a second use finds nothing. */
export async function spendEnrolment(tx: Queryable, token: string, memberId: string): Promise<boolean> {
  const { affected } = await tx.run(
    `delete from private.team_enrolments
      where token_hash = $1 and member_id = $2::bigint and expires_at > now()`,
    [tokenHash(token), memberId],
  )
  return affected === 1
}
