import type { Hono } from 'hono'
import type { BackupTarget, Database } from '../../server/admin/runtime'
import { type RateLimitStore, type RelyingParty, sessionMember } from '../../server/admin/sign-in'
import { createStudioApp } from '../studio-server/studio-app'
import { loadStudioFiles, type StudioFile } from '../studio-server/studio-files'
import type { StudioInvite } from '../studio-server/studio-invite'
import { authRoutes, OPEN_PAGES, TEAM_PAGES } from './auth-routes'
import { type SessionCookie, sessionCookie } from './session-cookie'
import { needsOf, studioRoutes } from './studio-routes'
import { type Sessions, teamGuard } from './team-guard'

export interface TeamStudioDeps {
  db: Database
  files: ReadonlyMap<string, StudioFile>
  /** SITE_URL's host and origin (localhost in development): known once the server listens. */
  relyingParty: () => RelyingParty
  /** SITE_URL is https: the session's cookie is `__Host-` and Secure. */
  secure: boolean
  rateLimiter?: RateLimitStore
  trustProxyHeader?: string
  invite: StudioInvite
  backup: BackupTarget
}

const SIGNED_OUT = 'You are signed out (or your session ended): sign in again with your passkey.'

/** The team's sessions: a cookie, its member read against the database on every request. */
const teamSessions = (db: Database, cookie: SessionCookie): Sessions => ({
  read: (c) => cookie.read(c),
  member: (token, network) => sessionMember(db, token, network),
  actor: (member, network) => ({ name: member.email, network }),
  signedOut: SIGNED_OUT,
})

/**
 * The team studio, as the site's server mounts it at /studio (server/boot/team-studio-mount.ts):
 * the studio's app, routes and page behind the one guard, with a passkey's session and a role
 * (ADR 099, 100, 112). Its paths here are the local studio's (`/api/…`); the mount takes /studio off.
 */
export function createTeamStudio(deps: TeamStudioDeps): Hono {
  const { db, files } = deps
  const cookie = sessionCookie(deps.secure)
  const api = studioRoutes({
    db,
    invite: deps.invite,
    backup: deps.backup,
    team: { db, relyingParty: deps.relyingParty },
  })
  return createStudioApp({
    files,
    routes: [...api, ...authRoutes({ ...deps, cookie }, files.get('/'))],
    guard: teamGuard({
      db,
      sessions: teamSessions(db, cookie),
      needOf: needsOf(api),
      origins: () => [deps.relyingParty().origin],
      trustProxyHeader: deps.trustProxyHeader,
      isFile: (path) => files.has(path),
      pages: TEAM_PAGES,
      signIn: { path: '/sign-in', open: OPEN_PAGES },
    }),
  })
}

/** The team studio with its page's built files (dist/studio), read once, on its first request. */
export async function loadTeamStudio(deps: Omit<TeamStudioDeps, 'files'>): Promise<Hono> {
  return createTeamStudio({ ...deps, files: await loadStudioFiles() })
}
