import { randomBytes } from 'node:crypto'
import type { Role } from '../contract/team-roles'
import type { Database } from '../server/db/database'
import { addMember } from '../server/team/team-members'
import { type SessionOrigin, startSession } from '../server/team/team-sessions'

/** A member of the team with one passkey of theirs kept as a sign-in would have kept it. */
export interface TestMember {
  memberId: string
  email: string
}

/**
 * A member added as `team add` adds them, for tests below the browser (the browser's tests make
 * real passkeys with a virtual authenticator). Adds nothing when they are on the team already.
 */
export async function teamMember(db: Database, email: string, role: Role): Promise<TestMember> {
  await addMember(db, { name: 'cli:test' }, email, role)
  const [row] = await db.query<{ id: string }>(
    'select id::text as id from private.team_members where email = $1',
    [email],
  )
  if (!row) throw new Error(`${email} is not on the team`)
  return { memberId: row.id, email }
}

/**
 * A passkey of the member's, stored as a ceremony stores one (its key is random bytes: nothing
 * below the browser checks a signature with it). Gives its id.
 */
export async function storedPasskey(db: Database, member: TestMember, name: string): Promise<string> {
  const id = randomBytes(16).toString('base64url')
  await db.run(
    `insert into private.team_passkeys (id, member_id, public_key, device_type, backed_up, name)
     values ($1, $2::bigint, $3, 'singleDevice', false, $4)`,
    [id, member.memberId, randomBytes(77), name],
  )
  return id
}

/**
 * A session the passkey made, as a sign-in starts one: the cookie header that carries it on
 * HTTPS (`__Host-`).
 */
export async function sessionCookieOf(
  db: Database,
  member: TestMember,
  origin: Partial<SessionOrigin> & { passkeyId: string },
): Promise<string> {
  const token = await db.transaction((tx) =>
    startSession(tx, member.memberId, { device: 'Chrome on Linux', network: undefined, ...origin }),
  )
  return `__Host-studio-session=${token}`
}
