import { randomBytes } from 'node:crypto'
import type { Role } from '../../contract/team-roles'
import { type Actor, recordAudit } from '../audit/audit-record'
import type { Database, Queryable } from '../db/database'
import { isoUtc } from '../db/iso-utc'
import { issueEnrolment } from './enrolment-links'
import { endMemberSessions } from './team-sessions'

/** A member as `team list` and the studio's Team page show them. */
export interface TeamMember {
  id: string
  email: string
  role: Role
  /** UTC, microseconds. */
  createdAt: string
  passkeys: number
  /** Their last sign-in's time, '' for never. */
  lastSignIn: string
  /** An enrolment link of theirs is still open. */
  linkOpen: boolean
}

/**
 * What a team change answers: done (with the enrolment link's token, for add and link, and for a
 * link what it ended), or why not.
 */
export type TeamChange = { done: true; token?: string; ended?: LinkEnded } | { done: false; reason: string }

/** What `team link` ended of an enrolled member's: their sessions, and with `--revoke` their passkeys. */
export interface LinkEnded {
  sessions: number
  passkeys: number
}

const NOT_A_MEMBER = (email: string) => `${email} is not on the team (team list shows who is).`

/** Whether anyone is on the team: without, /studio answers 404. */
export async function teamExists(db: Queryable): Promise<boolean> {
  const [row] = await db.query<{ found: boolean }>(
    'select exists (select from private.team_members) as found',
  )
  return row?.found === true
}

export function listMembers(db: Queryable): Promise<TeamMember[]> {
  return db.query<TeamMember>(
    `select m.id::text as id, m.email::text as email, m.role, ${isoUtc('m.created_at')} as "createdAt",
            (select count(*)::int from private.team_passkeys p where p.member_id = m.id) as passkeys,
            coalesce((select ${isoUtc('max(l.at)')} from private.audit_log l
                       where l.action = 'sign-in' and l.actor = m.email::text), '') as "lastSignIn",
            exists (select from private.team_enrolments e
                     where e.member_id = m.id and e.expires_at > now()) as "linkOpen"
       from private.team_members m order by m.created_at, m.id`,
  )
}

/** The member with this address (any letter case), under its row lock. */
async function memberOf(tx: Queryable, email: string): Promise<{ id: string; role: Role } | undefined> {
  const [row] = await tx.query<{ id: string; role: Role }>(
    `select id::text as id, role from private.team_members
      where email operator(extensions.=) $1::extensions.citext for update`,
    [email.trim()],
  )
  return row
}

/**
 * Whether taking `id`'s owner role away would leave members with no owner to run the team: the
 * last owner is never demoted, nor removed while others remain (removing everyone turns the team
 * studio off).
 */
async function leavesNoOwner(tx: Queryable, id: string, leaving: boolean): Promise<boolean> {
  const [row] = await tx.query<{ owners: number; others: number }>(
    `select count(*) filter (where role = 'owner')::int as owners, count(*)::int as others
       from private.team_members where id <> $1::bigint`,
    [id],
  )
  return row?.owners === 0 && (!leaving || (row?.others ?? 0) > 0)
}

const LAST_OWNER =
  'The team keeps at least one owner: make someone else an owner first (team role EMAIL owner).'

/** `team add EMAIL --role R`: a new member, and their one-use enrolment link's token. */
export function addMember(db: Database, actor: Actor, email: string, role: Role): Promise<TeamChange> {
  return db.transaction(async (tx) => {
    if (await memberOf(tx, email))
      return { done: false, reason: `${email} is on the team already; team link ${email} makes a new link.` }
    const [row] = await tx.query<{ id: string }>(
      `insert into private.team_members (email, role, user_handle) values ($1, $2, $3)
       on conflict (email) do nothing returning id::text as id`,
      [email.trim(), role, randomBytes(32)],
    )
    if (!row) return { done: false, reason: `${email} is on the team already.` }
    const token = await issueEnrolment(tx, row.id)
    await recordAudit(tx, actor, { action: 'team add', detail: `${email.trim()} as ${role}` })
    return { done: true, token }
  })
}

/**
 * `team link EMAIL [--revoke]`: a new enrolment link (a lost device); the one before stops working.
 * Every session of the member ends (a lost device's among them: it must not stay signed in while
 * the new link waits), and with `revoke` every passkey of theirs goes too, so that only the new
 * link's passkey signs in.
 */
export function newLink(db: Database, actor: Actor, email: string, revoke = false): Promise<TeamChange> {
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, email)
    if (!member) return { done: false, reason: NOT_A_MEMBER(email) }
    const token = await issueEnrolment(tx, member.id)
    const sessions = await endMemberSessions(tx, member.id)
    const { affected: passkeys } = revoke
      ? await tx.run('delete from private.team_passkeys where member_id = $1::bigint', [member.id])
      : { affected: 0 }
    const ended = { sessions, passkeys }
    await recordAudit(tx, actor, { action: 'team link', detail: linkDetail(email.trim(), ended, revoke) })
    return { done: true, token, ended }
  })
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`

function linkDetail(email: string, ended: LinkEnded, revoke: boolean): string {
  const sessions = `${plural(ended.sessions, 'session')} ended`
  return revoke
    ? `${email}; ${sessions}, ${plural(ended.passkeys, 'passkey')} removed`
    : `${email}; ${sessions}`
}

/** `team role EMAIL ROLE`: takes effect on the member's next request. */
export function setRole(db: Database, actor: Actor, email: string, role: Role): Promise<TeamChange> {
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, email)
    if (!member) return { done: false, reason: NOT_A_MEMBER(email) }
    if (member.role === 'owner' && role !== 'owner' && (await leavesNoOwner(tx, member.id, false)))
      return { done: false, reason: LAST_OWNER }
    await tx.run('update private.team_members set role = $2 where id = $1::bigint', [member.id, role])
    await recordAudit(tx, actor, {
      action: 'team role',
      detail: `${email.trim()}: ${member.role} to ${role}`,
    })
    return { done: true }
  })
}

/** `team remove EMAIL`: the member, their passkeys, links and sessions go at once. */
export function removeMember(db: Database, actor: Actor, email: string): Promise<TeamChange> {
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, email)
    if (!member) return { done: false, reason: NOT_A_MEMBER(email) }
    if (member.role === 'owner' && (await leavesNoOwner(tx, member.id, true)))
      return { done: false, reason: LAST_OWNER }
    await tx.run('delete from private.team_members where id = $1::bigint', [member.id])
    await recordAudit(tx, actor, { action: 'team remove', detail: email.trim() })
    return { done: true }
  })
}
