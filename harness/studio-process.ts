import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { watchOutput } from './child-output'
import { entryArgs } from './test-bundle'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

export interface StudioProcess {
  /** The URL it printed, token included. */
  url: string
  origin: string
  port: number
  token: string
  process: ChildProcess
  /** Ctrl-C, as the owner stops it; resolves with its exit code. */
  stop(): Promise<number | null>
}

/**
 * `npm run waitlist -- studio --port 0` against the database `env` names (a TestServer's env),
 * on a free port; resolves once it has printed its URL.
 */
export async function startStudioProcess(env: Record<string, string>): Promise<StudioProcess> {
  const child = spawn(process.execPath, [...entryArgs('waitlist-cli'), 'studio', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { found } = watchOutput(child, /(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/, 60_000, 'the studio')
  const url = await found
  const parsed = new URL(url)
  const exited = once(child, 'exit')
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    token: new URLSearchParams(parsed.hash.slice(1)).get('token') ?? '',
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
      const [code] = await exited
      return code as number | null
    },
  }
}
