import type { Hono } from 'hono'
import { siteConfig } from '../../contract/site-config'
import type { BackupTarget } from '../backup/backup-and-restore'
import type { Database } from '../db/database'
import type { PreviewFallback } from '../mail/messages/message-preview'
import type { RateLimitStore } from '../rate-limit/rate-limit'
import type { RelyingParty } from '../team/passkeys'
import { teamExists } from '../team/team-members'

/** Where the site serves the team studio. */
export const STUDIO_MOUNT = '/studio'

export interface TeamStudioMountDeps {
  db: Database
  /** SITE_URL, else the address the server listens on: known once it listens. */
  siteUrl: () => string
  rateLimiter?: RateLimitStore
  trustProxyHeader?: string
  fallback: PreviewFallback
  /** The server's env's backup settings: the studio's header says where the backup stands. */
  backup: BackupTarget
}

/** What the site's app asks of a path under /studio: the team studio's answer, or none (no team: the site's 404). */
export type StudioMount = (request: Request, env: unknown) => Promise<Response | undefined>

const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]'])

/**
 * The relying party WebAuthn binds each passkey to: SITE_URL's host and origin. A browser takes no
 * IP address as an RP ID, so a server known only by its loopback address is `localhost` (open the
 * studio at http://localhost:PORT/studio in development).
 */
export function relyingPartyOf(siteUrl: string): RelyingParty {
  const url = new URL(siteUrl)
  if (LOOPBACK_IPS.has(url.hostname)) url.hostname = 'localhost'
  return { id: url.hostname, name: `${siteConfig.labName} studio`, origin: url.origin }
}

/**
 * The team studio on the site's own server (ADR 100): the assembly mounts the owner's studio app,
 * so neither the routes (server/http) nor the studio (owner/) imports the other. With no team
 * member, /studio is the site's 404. The studio's code (@simplewebauthn/server, the page's files)
 * is loaded on the first request that finds a team, never by a server that has none.
 */
export function teamStudioMount(deps: TeamStudioMountDeps): StudioMount {
  let loading: Promise<Hono> | undefined
  const load = async () => {
    const { loadTeamStudio } = await import('../../owner/team-studio/team-studio-app')
    return loadTeamStudio({
      db: deps.db,
      relyingParty: () => relyingPartyOf(deps.siteUrl()),
      secure: new URL(deps.siteUrl()).protocol === 'https:',
      rateLimiter: deps.rateLimiter,
      trustProxyHeader: deps.trustProxyHeader,
      invite: { fallback: deps.fallback },
      backup: deps.backup,
    })
  }
  return async (request, env) => {
    if (!(await teamExists(deps.db))) return undefined
    const url = new URL(request.url)
    // The page's files are relative to /studio/: the bare path would load them from the site's root.
    if (url.pathname === STUDIO_MOUNT)
      return new Response(null, { status: 308, headers: { Location: `${STUDIO_MOUNT}/${url.search}` } })
    loading ??= load().catch((error: unknown) => {
      loading = undefined // a page built later is found on the next request
      throw error
    })
    const app = await loading
    url.pathname = url.pathname.slice(STUDIO_MOUNT.length)
    return app.fetch(new Request(url, request), env)
  }
}
