import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { watchOutput } from './child-output'
import { entryArgs } from './test-bundle'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const LINK = /(http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/g

export interface StudioProcess {
  /** The newest link it printed, not used yet: each opens one session, once (a page's goto). */
  readonly url: string
  /** The newest link, opening the page with `search` (filters in the query): `/?search#token=…`. */
  at(search: string): string
  origin: string
  port: number
  /** A session's token, from the first link: the Bearer the page sends. */
  token: string
  process: ChildProcess
  /** Ctrl-C, as the owner stops it; resolves with its exit code. */
  stop(): Promise<number | null>
}

/**
 * `npm run waitlist -- studio --port 0` against the database `env` names (a TestServer's env),
 * on a free port; resolves once it has printed its link, the harness has opened a session with it
 * as the page does (POST /auth/local), and the studio has printed the next link for a browser.
 */
export async function startStudioProcess(env: Record<string, string>): Promise<StudioProcess> {
  const child = spawn(process.execPath, [...entryArgs('waitlist-cli'), 'studio', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const first = watchOutput(child, new RegExp(LINK.source), 60_000, 'the studio')
  const parsed = new URL(await first.found)
  const exited = once(child, 'exit')
  const links = () => [...first.output().matchAll(LINK)].map((match) => match[1] ?? '')
  const token = await openSession(parsed)
  // The next link is printed as the session opens: wait for it, so `url` is one not used yet.
  for (let waited = 0; links().length < 2; waited += 20) {
    if (waited > 10_000) throw new Error(`the studio printed no next link:\n${first.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return {
    get url() {
      return links().at(-1) ?? ''
    },
    at(search) {
      return (links().at(-1) ?? '').replace('/#', `/?${search}#`)
    },
    origin: parsed.origin,
    port: Number(parsed.port),
    token,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
      const [code] = await exited
      return code as number | null
    },
  }
}

/** A session's token for the link, as the studio's page gets one. */
async function openSession(link: URL): Promise<string> {
  const response = await fetch(`${link.origin}/auth/local`, {
    method: 'POST',
    headers: { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: new URLSearchParams(link.hash.slice(1)).get('token') }),
  })
  const { session } = (await response.json()) as { session?: string }
  if (!session) throw new Error(`the studio opened no session: ${response.status}`)
  return session
}
