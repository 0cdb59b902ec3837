import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Hono } from 'hono'
import { StartupError } from '../../server/admin/basics'

export const DEFAULT_STUDIO_PORT = 3001

/** The port is taken: said plainly, and the CLI exits non-zero. */
export class StudioPortInUseError extends StartupError {}

export interface ListeningStudio {
  port: number
  stop(): Promise<void>
}

/**
 * The local studio's own listener, on 127.0.0.1 unless told otherwise: inside a container, 0.0.0.0
 * lets the port published on the host's loopback reach it. The app it serves
 * (owner/team-studio/local-studio.ts) is given the port once it is known: its guard answers only
 * requests addressed to 127.0.0.1 or localhost on it.
 */
export async function startStudio(
  appFor: (port: () => number) => Hono,
  port: number,
  host = '127.0.0.1',
): Promise<ListeningStudio> {
  let listening = port
  const app = appFor(() => listening)
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
    port: listening,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
