import type { Handler } from 'hono'
import type { Role } from '../../contract/team-roles'
import { type BackupTarget, type Database, readBackupLine } from '../../server/admin/runtime'
import { downloadCsv, entries, remove, type StudioRoute, sources, summary } from '../studio-server/studio-app'
import { studioEntry } from '../studio-server/studio-entry'
import { studioFunnel } from '../studio-server/studio-funnel'
import { type StudioInvite, studioInvite } from '../studio-server/studio-invite'
import { studioInviteSelected } from '../studio-server/studio-invite-selected'
import { studioMarks } from '../studio-server/studio-marks'
import { studioPreflight } from '../studio-server/studio-preflight'
import { studioSendHealth } from '../studio-server/studio-send-health'
import { studioTestSend } from '../studio-server/studio-test-send'
import { passkeyHandlers, sessionHandlers, type TeamRouteDeps, teamHandlers } from './team-routes'

/** What a route needs: the least role that may call it, and what it does, in the member's words. */
export interface RouteNeed {
  role: Role
  doing: string
}

/** A row of the studio's API: the route, and the role the one guard (team-guard.ts) asks of its caller. */
export interface NeedingRoute extends StudioRoute {
  need: RouteNeed
}

export interface StudioRoutesDeps {
  db: Database
  invite: StudioInvite
  /** Where the backup goes (BACKUP_URL, DATA_DIR, DATABASE_URL): the header's backup line. */
  backup: BackupTarget
  /** The team studio's own rows (the team, passkeys, sessions); absent on the local studio, which has no member. */
  team?: TeamRouteDeps
}

const SEND_ANYWAY = 'send invitations although the preflight fails'
const view = (doing: string): RouteNeed => ({ role: 'viewer', doing })
const choose = (doing: string): RouteNeed => ({ role: 'member', doing })
const own = (doing: string): RouteNeed => ({ role: 'owner', doing })
const row =
  (method: StudioRoute['method']) =>
  (path: string, need: RouteNeed, handler: Handler): NeedingRoute => ({
    method,
    path,
    need,
    handlers: [handler],
  })
const get = row('GET')
const post = row('POST')

/**
 * The studio's API, one row a route (as listmonk's cmd/handlers.go has them): method, path, the least
 * role that may call it, and its handler. The one guard reads the role from this table on every
 * call, so a role is enforced in one place, and a path with no row here is refused to everyone. The
 * page only mirrors it (owner/studio-page/role.tsx). The local studio (`waitlist studio`) serves
 * every row but the team's own, to its owner. A body larger than 64 KiB is named in body-limits.ts.
 */
export function studioRoutes(deps: StudioRoutesDeps): NeedingRoute[] {
  const { db, invite } = deps
  const marks = studioMarks(db)
  const inviting = studioInvite(db, invite)
  const selected = studioInviteSelected(db, invite)
  const health = studioSendHealth(db)
  const preflight = studioPreflight(db)
  const team = teamHandlers(deps.team ?? { db, relyingParty: noRelyingParty })
  const rows = [
    get('/api/summary', view('see the list'), (c) => summary(c, db)),
    get('/api/sources', view('see the sources'), (c) => sources(c, db)),
    get('/api/entries', view('see the list'), (c) => entries(c, db)),
    get('/api/entry', view('see an entry'), studioEntry(db)),
    get('/api/funnel', view('see the funnel'), studioFunnel(db)),
    get('/api/send-health', view('see how sending goes'), health.report),
    get('/api/activity', view('read the record of who did what'), team.activity),
    get('/api/me', view('use the studio'), team.me),
    get('/api/backup', view('see the backup'), async (c) => c.json(await readBackupLine(deps.backup))),
    get('/invite-preview.html', choose('preview an invitation'), inviting.previewHtml),
    get('/api/invite/preview', choose('preview an invitation'), inviting.preview),
    post('/api/invite', choose('invite people'), inviting.queue),
    post('/api/invite/selected/preview', choose('preview an invitation'), selected.preview),
    post('/api/invite/selected', choose('invite people'), selected.queue),
    get('/api/preflight', choose('see the deliverability preflight'), preflight.last),
    post('/api/preflight', choose('run the deliverability preflight'), preflight.run),
    post('/api/invite/test', choose('send a test invitation'), studioTestSend(db, invite)),
    post('/api/send-health/resume', choose('resume sending'), health.resume),
    post('/api/tag', choose('tag entries'), marks.tag),
    post('/api/untag', choose('untag entries'), marks.untag),
    post('/api/note', choose('write notes'), marks.note),
    get('/api/export.csv', own('export the list'), (c) => downloadCsv(c, db)),
    post('/api/remove', own('remove entries'), (c) => remove(c, db)),
    // "Send anyway": a batch although the preflight fails, recorded with the checks skipped (ADR 124).
    post('/api/invite/anyway', own(SEND_ANYWAY), inviting.queueAnyway),
    post('/api/invite/selected/anyway', own(SEND_ANYWAY), selected.queueAnyway),
  ]
  return deps.team ? [...rows, ...teamRoutes(deps.team)] : rows
}

/** The team studio's own rows: each member's passkeys and sessions, and the team for owners. */
function teamRoutes(deps: TeamRouteDeps): NeedingRoute[] {
  const team = teamHandlers(deps)
  const passkeys = passkeyHandlers(deps)
  const sessions = sessionHandlers(deps)
  return [
    get('/api/passkeys', view('see your passkeys'), passkeys.list),
    post('/api/passkeys/options', view('add a passkey'), passkeys.options),
    post('/api/passkeys/verify', view('add a passkey'), passkeys.verify),
    post('/api/passkeys/rename', view('name your passkeys'), passkeys.rename),
    post('/api/passkeys/remove', view('remove your passkeys'), passkeys.remove),
    get('/api/sessions', view('see where you are signed in'), sessions.list),
    post('/api/sessions/end', view('end your sessions'), sessions.end),
    get('/api/team', own('see the team'), team.team),
    post('/api/team/add', own('add to the team'), team.add),
    post('/api/team/role', own("change a member's role"), team.role),
    post('/api/team/remove', own('remove a member'), team.remove),
    post('/api/team/link', own('make an enrolment link'), team.link),
  ]
}

// The local studio serves no row that makes an enrolment link, the one use of the relying party.
const noRelyingParty = (): never => {
  throw new Error('The local studio has no team routes')
}

/** A table's needs by `METHOD path`; HEAD is read as GET. Undefined for a route no one may call. */
export function needsOf(
  routes: readonly NeedingRoute[],
): (method: string, path: string) => RouteNeed | undefined {
  const needs = new Map(routes.map((route) => [`${route.method} ${route.path}`, route.need]))
  return (method, path) => needs.get(`${method === 'HEAD' ? 'GET' : method} ${path}`)
}

const WHO_MAY: Record<Role, string> = {
  viewer: 'every member of the team',
  member: 'members and owners',
  owner: 'owners only',
}

/** A refusal (403), in the member's words: what they tried, who may, and what to do. */
export const refusalFor = (role: Role, need: RouteNeed): string =>
  `You are a ${role} on this team, and ${WHO_MAY[need.role]} may ${need.doing}. An owner can change your role.`
