import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { cliActor } from '../../server/admin/audit'
import { StartupError } from '../../server/admin/basics'
import { createStudioApp } from './studio-app'
import type { StudioDatabase } from './studio-database'
import { loadStudioFiles } from './studio-files'
import { studioGuard } from './studio-guard'
import type { StudioInvite } from './studio-invite'

export const DEFAULT_STUDIO_PORT = 3001

/** The port is taken: said plainly, and the CLI exits non-zero. */
export class StudioPortInUseError extends StartupError {}

export interface RunningStudio {
  /** The address to open, with its token. */
  url: string
  port: number
  stop(): Promise<void>
}

/**
 * Serves the studio behind a fresh random token, on 127.0.0.1 unless told otherwise: inside a
 * container, 0.0.0.0 lets the port published on the host's loopback reach it. The URL it prints is
 * always 127.0.0.1's, the only Host it answers besides localhost.
 */
export async function startStudio(
  { db, stopped }: Pick<StudioDatabase, 'db' | 'stopped'>,
  port: number,
  host = '127.0.0.1',
  invite?: StudioInvite,
): Promise<RunningStudio> {
  const files = await loadStudioFiles()
  const token = randomBytes(24).toString('base64url')
  let listening = port
  const guard = studioGuard({ token, port: () => listening, actor: cliActor() })
  const app = createStudioApp({ db, stopped, guard, files, invite })
  const server = createServer(getRequestListener(app.fetch))
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new StudioPortInUseError(
            `Port ${port} on ${host} is already in use (another studio, or another program). ` +
              'Choose another one: npm run waitlist -- studio --port 3002',
          ),
        )
      else reject(error)
    })
    server.listen(port, host, resolve)
  })
  listening = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${listening}/#token=${token}`,
    port: listening,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
