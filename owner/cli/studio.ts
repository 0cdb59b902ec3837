import { once } from 'node:events'
import type { BackupTarget } from '../../server/admin/runtime'
import { buildIfStale } from '../../server/boot/owner-assembly'
import { startStudio } from '../studio-server/start-studio'
import type { StudioDatabase } from '../studio-server/studio-database'
import { loadStudioFiles } from '../studio-server/studio-files'
import type { StudioInvite } from '../studio-server/studio-invite'
import { createLocalStudio, type LocalStudio } from '../team-studio/local-studio'

/** Reads --port: 0 (any free port) to 65535; undefined when it is not one. */
export function parsePort(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback
  return /^\d{1,5}$/.test(value) && Number(value) <= 65_535 ? Number(value) : undefined
}

/**
 * `studio [--port N] [--host IP]`: serves the studio on its own listener until Ctrl-C, behind the
 * team studio's guard, its owner the person who opens the one-use link it prints (ADR 112).
 */
export async function studioCommand(
  database: StudioDatabase,
  port: number,
  host: string,
  invite: StudioInvite,
  backup: BackupTarget,
): Promise<number> {
  // The page is part of the build; a fresh clone builds it first, as `npm start` does.
  await buildIfStale((message) => console.error(message))
  const files = await loadStudioFiles()
  let local: LocalStudio | undefined
  let origin = ''
  const linkOf = (token: string) => `${origin}/#token=${token}`
  const announce = (token: string) =>
    console.log(`That link opened a session. The next one (for another browser or tab):\n  ${linkOf(token)}`)
  const studio = await startStudio(
    (listening) => {
      local = createLocalStudio({ database, files, invite, backup, port: listening, announce })
      return local.app
    },
    port,
    host,
  )
  origin = `http://127.0.0.1:${studio.port}`
  console.log(
    `Waitlist studio on ${host === '127.0.0.1' ? '127.0.0.1 only' : `${host} (inside this container)`}. ` +
      `Open (the link opens one session, once; keep it private):\n  ${linkOf(local?.sessions.link() ?? '')}`,
  )
  if (await database.stopped())
    console.log(
      'No server runs on this DATA_DIR now: the studio says so until npm start runs, then follows it.',
    )
  console.log('Ctrl-C stops it.')
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')])
  await studio.stop()
  return 0
}
