import type { Hono } from 'hono'
import { cliActor } from '../../server/admin/audit'
import type { BackupTarget } from '../../server/admin/runtime'
import { createStudioApp } from '../studio-server/studio-app'
import type { StudioDatabase } from '../studio-server/studio-database'
import type { StudioFile } from '../studio-server/studio-files'
import type { StudioInvite } from '../studio-server/studio-invite'
import { LOCAL_PAGES, localAuthRoutes } from './auth-routes'
import { type LocalSessions, localSessions } from './local-session'
import { needsOf, studioRoutes } from './studio-routes'
import { teamGuard } from './team-guard'

const PREVIEW_FRAME = '/invite-preview.html'

export interface LocalStudio {
  app: Hono
  sessions: LocalSessions
}

/**
 * The local studio (`waitlist studio`, ADR 112): the team studio's app, route table and guard, on
 * its own loopback listener (owner/studio-server/start-studio.ts), so it works with no team and no
 * site running. Its one owner is whoever started it, by the one-use link it prints
 * (local-session.ts), named `cli:` and their OS user in the record. The guard answers only a Host of
 * 127.0.0.1:PORT or localhost:PORT (a page whose DNS name is re-pointed at 127.0.0.1 still sends its
 * own name). It serves every row of the studio's API but the team's own, and the Activity page.
 */
export function createLocalStudio(options: {
  database: Pick<StudioDatabase, 'db' | 'stopped'>
  files: ReadonlyMap<string, StudioFile>
  invite: StudioInvite
  backup: BackupTarget
  /** The port it listens on, known once it listens. */
  port: () => number
  /** Prints the next link once one has been used. */
  announce: (link: string) => void
}): LocalStudio {
  const { db, stopped } = options.database
  const { files } = options
  const sessions = localSessions(cliActor(), options.announce)
  const hosts = () => [`127.0.0.1:${options.port()}`, `localhost:${options.port()}`]
  const origins = () => hosts().map((host) => `http://${host}`)
  const api = studioRoutes({ db, invite: options.invite, backup: options.backup })
  const app = createStudioApp({
    files,
    stopped,
    routes: [...api, ...localAuthRoutes(sessions, origins, files.get('/'))],
    guard: teamGuard({
      db,
      sessions,
      needOf: needsOf(api),
      origins,
      isFile: (path) => files.has(path),
      // The invitation's preview loads in a frame, which sends no Bearer: it holds no address.
      pages: [...LOCAL_PAGES, PREVIEW_FRAME],
      hosts,
    }),
  })
  return { app, sessions }
}
