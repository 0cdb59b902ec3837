import { once } from 'node:events'
import { buildIfStale } from '../../server/boot/owner-assembly'
import { startStudio } from '../studio-server/start-studio'
import type { StudioDatabase } from '../studio-server/studio-database'
import type { StudioInvite } from '../studio-server/studio-invite'

/** Reads --port: 0 (any free port) to 65535; undefined when it is not one. */
export function parsePort(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback
  return /^\d{1,5}$/.test(value) && Number(value) <= 65_535 ? Number(value) : undefined
}

/** `studio [--port N] [--host IP]`: serves the local web view until Ctrl-C. */
export async function studioCommand(
  database: StudioDatabase,
  port: number,
  host = '127.0.0.1',
  invite?: StudioInvite,
): Promise<number> {
  // The page is part of the build; a fresh clone builds it first, as `npm start` does.
  await buildIfStale((message) => console.error(message))
  const studio = await startStudio(database, port, host, invite)
  console.log(
    `Waitlist studio on ${host === '127.0.0.1' ? '127.0.0.1 only' : `${host} (inside this container)`}. ` +
      `Open (the token is the key; keep it private):\n  ${studio.url}`,
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
