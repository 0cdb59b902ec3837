import { isRole, ROLES, type Role } from '../../contract/team-roles'
import { cliActor } from '../../server/admin/audit'
import type { Database } from '../../server/admin/runtime'
import {
  addMember,
  ENROLMENT_HOURS,
  enrolmentLink,
  type LinkEnded,
  listMembers,
  newLink,
  normalizeSiteUrl,
  removeMember,
  setRole,
  type TeamChange,
} from '../../server/admin/team'
import { plural } from './plural'

type Print = (line: string) => void

/** What `team` needs to know: the site's public address, where every link points. */
export interface TeamSite {
  SITE_URL?: string
  PORT: number
}

/**
 * The links' address: SITE_URL, else the local server as a browser must name it for a passkey
 * (localhost: no browser takes an IP address as WebAuthn's RP ID).
 */
export const siteUrlOf = (env: TeamSite) => normalizeSiteUrl(env.SITE_URL ?? `http://localhost:${env.PORT}`)

function linkLines(env: TeamSite, email: string, token: string, print: Print) {
  print(`Enrolment link for ${email} (one use, ${ENROLMENT_HOURS} hours; hand it over privately):`)
  print(`  ${enrolmentLink(siteUrlOf(env), token)}`)
  print('It opens the team studio, where they create a passkey: no password, ever.')
}

/** What the new link ended: every session (a lost device's too), and with --revoke every passkey. */
function endedLines(email: string, ended: LinkEnded | undefined, revoke: boolean, print: Print) {
  const sessions = ended?.sessions ?? 0
  print(`Signed ${email} out everywhere: ${plural(sessions, 'session')} ended; each device signs in again.`)
  if (revoke)
    print(
      `Removed ${plural(ended?.passkeys ?? 0, 'passkey')} of theirs: only the passkey made with this link will sign in.`,
    )
}

function outcome(change: TeamChange, done: () => void): number {
  if (!change.done) {
    console.error(change.reason)
    return 1
  }
  done()
  return 0
}

/**
 * `team add|list|role|remove|link`: the lab's team for the studio at /studio (ADR 099); `link
 * --revoke` removes the member's passkeys too (a stolen device). Each change
 * is recorded with who ran it (`cli:` and the OS user). Exits 0 done, 1 refused (with why), 2 on
 * bad usage (the caller checks the words first).
 */
export async function teamCommand(
  db: Database,
  env: TeamSite,
  [action, email = '', role]: readonly string[],
  { revoke = false }: { revoke?: boolean } = {},
  print: Print = console.log,
): Promise<number> {
  const actor = cliActor()
  if (action === 'list') return listTeam(db, print)
  if (action === 'add') {
    const change = await addMember(db, actor, email, role as Role)
    return outcome(change, () => change.done && change.token && linkLines(env, email, change.token, print))
  }
  if (action === 'link') {
    const change = await newLink(db, actor, email, revoke)
    return outcome(change, () => {
      if (!change.done || !change.token) return
      linkLines(env, email, change.token, print)
      endedLines(email, change.ended, revoke, print)
    })
  }
  if (action === 'role')
    return outcome(await setRole(db, actor, email, role as Role), () =>
      print(`${email} is now ${role === 'owner' ? 'an' : 'a'} ${role}; it counts from their next request.`),
    )
  return outcome(await removeMember(db, actor, email), () =>
    print(`Removed ${email} from the team; their passkeys and sessions ended at once.`),
  )
}

async function listTeam(db: Database, print: Print): Promise<number> {
  const members = await listMembers(db)
  if (members.length === 0) {
    print('Nobody is on the team yet: /studio answers 404. Add the first owner: team add EMAIL --role owner')
    return 0
  }
  for (const member of members) {
    const passkeys = member.passkeys === 1 ? '1 passkey' : `${member.passkeys} passkeys`
    const signIn = member.lastSignIn ? `last sign-in ${member.lastSignIn}` : 'never signed in'
    const link = member.linkOpen ? ', enrolment link open' : ''
    print(`${member.email}  ${member.role}  ${passkeys}, ${signIn}${link}`)
  }
  return 0
}

/** What is wrong with `team …`'s words, or undefined. */
export function teamUsageProblem([action, email, role, ...rest]: readonly (string | undefined)[]):
  | string
  | undefined {
  const roles = ROLES.join('|')
  const usage: Record<string, string> = {
    add: `team add EMAIL --role ${roles}`,
    list: 'team list',
    role: `team role EMAIL ${roles}`,
    remove: 'team remove EMAIL',
    link: 'team link EMAIL [--revoke]',
  }
  if (!action || !Object.hasOwn(usage, action)) return `team needs one of: ${Object.values(usage).join(', ')}`
  const wants = usage[action] as string
  const takesRole = action === 'add' || action === 'role'
  if (action === 'list') return email === undefined ? undefined : `usage: ${wants}`
  if (!email || rest.length > 0 || (!takesRole && role !== undefined)) return `usage: ${wants}`
  if (takesRole && !isRole(role)) return `usage: ${wants} (the role: ${ROLES.join(', ')})`
  return undefined
}
