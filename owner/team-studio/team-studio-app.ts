import type { Hono } from 'hono'
import type { Database } from '../../server/admin/runtime'
import type { RateLimitStore, RelyingParty } from '../../server/admin/sign-in'
import { createStudioApp } from '../studio-server/studio-app'
import { loadStudioFiles, type StudioFile } from '../studio-server/studio-files'
import type { StudioInvite } from '../studio-server/studio-invite'
import { routeAuth } from './auth-routes'
import { sessionCookie } from './session-cookie'
import { PAGE_PATHS, teamGuard } from './team-guard'
import { routeTeam } from './team-routes'

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
}

/**
 * The team studio, as the site's server mounts it at /studio (server/boot/team-studio-mount.ts):
 * the local studio's app and page, behind a passkey and a role instead of a token (ADR 099, 100).
 * Its paths here are the local studio's (`/api/…`); the mount takes /studio off.
 */
export function createTeamStudio(deps: TeamStudioDeps): Hono {
  const { db, files } = deps
  const cookie = sessionCookie(deps.secure)
  const origin = () => deps.relyingParty().origin
  const page = files.get('/')
  return createStudioApp({
    db,
    files,
    invite: deps.invite,
    guard: teamGuard({
      db,
      cookie,
      origin,
      trustProxyHeader: deps.trustProxyHeader,
      isFile: (path) => files.has(path),
    }),
    extend(app) {
      routeAuth(app, { ...deps, cookie })
      routeTeam(app, { db, relyingParty: deps.relyingParty })
      // Each of the page's own paths serves the page; it shows what the path names.
      for (const path of PAGE_PATHS)
        if (path !== '/' && page)
          app.get(path, (c) => c.body(new Uint8Array(page.body), 200, { 'Content-Type': page.contentType }))
    },
  })
}

/** The team studio with its page's built files (dist/studio), read once, on its first request. */
export async function loadTeamStudio(deps: Omit<TeamStudioDeps, 'files'>): Promise<Hono> {
  return createTeamStudio({ ...deps, files: await loadStudioFiles() })
}
