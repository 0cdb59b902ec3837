import type { Role } from '../../contract/team-roles'

/** What a route needs: the least role that may call it, and what it does, in the member's words. */
export interface RouteNeed {
  role: Role
  doing: string
}

const view = (doing: string): RouteNeed => ({ role: 'viewer', doing })
const choose = (doing: string): RouteNeed => ({ role: 'member', doing })
const own = (doing: string): RouteNeed => ({ role: 'owner', doing })

/**
 * Every route of the studio's API and what it needs, by `METHOD path` (ADR 099): the team studio's
 * guard reads this table on every call, so a role is enforced in one place, and a route with no
 * row here is refused to everyone. The page only mirrors it (it hides what the role may not do).
 * A new route adds its row (tests/server/team-studio.test.ts checks that each one has, and no other).
 */
export const ROUTE_NEEDS: Readonly<Record<string, RouteNeed>> = {
  'GET /api/summary': view('see the list'),
  'GET /api/sources': view('see the sources'),
  'GET /api/entries': view('see the list'),
  'GET /api/entry': view('see an entry'),
  'GET /api/funnel': view('see the funnel'),
  'GET /api/send-health': view('see how sending goes'),
  'GET /api/activity': view('read the record of who did what'),
  'GET /api/me': view('use the studio'),
  'GET /api/passkeys': view('see your passkeys'),
  'POST /api/passkeys/options': view('add a passkey'),
  'POST /api/passkeys/verify': view('add a passkey'),
  'POST /api/passkeys/rename': view('name your passkeys'),
  'POST /api/passkeys/remove': view('remove your passkeys'),
  'GET /api/sessions': view('see where you are signed in'),
  'POST /api/sessions/end': view('end your sessions'),
  'GET /invite-preview.html': choose('preview an invitation'),
  'GET /api/invite/preview': choose('preview an invitation'),
  'POST /api/invite': choose('invite people'),
  'POST /api/invite/selected/preview': choose('preview an invitation'),
  'POST /api/invite/selected': choose('invite people'),
  'POST /api/invite/test': choose('send a test invitation'),
  'POST /api/send-health/resume': choose('resume sending'),
  'POST /api/tag': choose('tag entries'),
  'POST /api/untag': choose('untag entries'),
  'POST /api/note': choose('write notes'),
  'GET /api/export.csv': own('export the list'),
  'POST /api/remove': own('remove entries'),
  'GET /api/team': own('see the team'),
  'POST /api/team/add': own('add to the team'),
  'POST /api/team/role': own("change a member's role"),
  'POST /api/team/remove': own('remove a member'),
  'POST /api/team/link': own('make an enrolment link'),
}

/** A route's need; HEAD is read as GET. Undefined for a route no one may call. */
export function needOf(method: string, path: string): RouteNeed | undefined {
  const key = `${method === 'HEAD' ? 'GET' : method} ${path}`
  return Object.hasOwn(ROUTE_NEEDS, key) ? ROUTE_NEEDS[key] : undefined
}

const WHO_MAY: Record<Role, string> = {
  viewer: 'every member of the team',
  member: 'members and owners',
  owner: 'owners only',
}

/** A refusal (403), in the member's words: what they tried, who may, and what to do. */
export const refusalFor = (role: Role, need: RouteNeed): string =>
  `You are a ${role} on this team, and ${WHO_MAY[need.role]} may ${need.doing}. An owner can change your role.`
