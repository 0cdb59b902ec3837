import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { type ApiKeys, loadApiKeys } from '../server/auth/api-keys'
import { clusterFiles, readPostmasterPid } from '../server/db/embedded/cluster-files'
import { isProcessAlive } from '../server/db/embedded/process-alive'
import { openPostgres } from '../server/db/postgres-driver'
import { watchOutput } from './child-output'
import { freshDataDir } from './data-dir'
import { entryArgs } from './test-bundle'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/**
 * The beta link every test server sends invitations with, unless a test gives its own: the site
 * config's default is a placeholder (a reserved example name) that invite refuses to queue.
 */
export const TEST_BETA_URL = 'https://beta.tessel-labs.com/'

export interface TestServer {
  url: string
  anonKey: string
  serviceKey: string
  /** The JWT secret the keys are signed with, wherever the server keeps it. */
  secret: Uint8Array
  dataDir: string
  /** DATA_DIR and the variables given in options.env (DATABASE_URL…): to reach the same database again. */
  env: Record<string, string>
  process: ChildProcess
  /** Everything the server printed, for tests that inspect logs. */
  output(): string
  /** SIGTERM and wait; the data dir is kept unless cleanup() is called. */
  stop(): Promise<void>
  /** SIGKILL, as a crash would (the Node process alone; the embedded PostgreSQL lives on). */
  kill(): Promise<void>
  /** SIGKILL to the server's whole process group. */
  killGroup(): Promise<void>
  cleanup(): Promise<void>
}

export interface TestServerOptions {
  dataDir?: string
  env?: Record<string, string>
  /** Milliseconds to wait for "Serving http://…". */
  timeout?: number
  /** Run the server as this user (the test runs as root), to check the unprivileged path. */
  user?: { uid: number; gid: number }
  /**
   * Run it as `npm start` does (build/start.mjs: bundled at start, then plain Node) instead of from
   * the run's bundle (test-bundle.ts), as the tests do.
   */
  bundled?: boolean
  /** Run it as `npm run dev` does: the same server, with Vite serving the pages from the sources. */
  dev?: boolean
}

/** The embedded cluster's postmaster, while one runs under dataDir. */
export async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const holder = await readPostmasterPid(clusterFiles(dataDir).cluster)
  return holder && isProcessAlive(holder.pid) ? holder.pid : undefined
}

/** A test that killed its server leaves the postmaster running: stop it before removing its files. */
export async function stopLeftPostmaster(dataDir: string) {
  const pid = await postmasterPid(dataDir)
  if (!pid) return
  process.kill(pid, 'SIGQUIT')
  for (let i = 0; i < 100 && isProcessAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50))
}

/** The keys the server uses: with DATABASE_URL and no JWT_SECRET, the secret it keeps in that database. */
export async function serverKeys(env: Record<string, string | undefined>, dataDir: string): Promise<ApiKeys> {
  const sources = { jwtSecret: env.JWT_SECRET, dataDir, databaseUrl: env.DATABASE_URL }
  if (env.JWT_SECRET || !env.DATABASE_URL) return loadApiKeys(sources)
  const db = await openPostgres(env.DATABASE_URL, 1)
  try {
    return await loadApiKeys({ ...sources, db })
  } finally {
    await db.close()
  }
}

/**
 * Runs the real server (`server/boot/main.ts`) as a child process on 127.0.0.1 and a free port, with
 * its own data dir, as `npm start` does but from the run's bundle (test-bundle.ts; no bundle to make
 * at each start) and without the site's build step.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const fresh = options.dataDir ? undefined : await freshDataDir()
  const dataDir = options.dataDir ?? fresh?.dir ?? ''
  const env = { ...options.env }
  // npm run dev runs through tsx, as the developer's command does; everything else from the run's bundle.
  const dev = ['--import', 'tsx', 'server/boot/dev.ts']
  const entry = options.bundled ? ['build/start.mjs'] : options.dev ? dev : entryArgs('main')
  const child = spawn(process.execPath, entry, {
    cwd: ROOT,
    ...options.user,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      SKIP_BUILD: '1',
      RATE_LIMIT_PER_MINUTE: '0',
      // Half a second a start, hundreds of starts: short here, never off (the spike's is as shipped).
      WARM_UP_MS: '50',
      BETA_URL: TEST_BETA_URL,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as under a supervisor, so a test can kill the group.
    detached: true,
  })
  const { found, output } = watchOutput(child, /Serving (http:\/\/\S+)/, options.timeout ?? 30_000, 'server')
  const url = await found.catch(async (error: unknown) => {
    // A server that refused to start (the tests of bad configuration) leaves no data dir behind.
    // A data dir the test passed in is another server's, which may be running: left alone.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    if (fresh) {
      await stopLeftPostmaster(dataDir)
      await fresh.cleanup()
    }
    throw error
  })
  // Read once the server is up: on a new data dir it is the server that generates the secret.
  const keys = await serverKeys(env, dataDir)
  const exited = once(child, 'exit')
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    await exited
  }
  return {
    url,
    anonKey: keys.anonKey,
    serviceKey: keys.serviceKey,
    secret: keys.secret,
    dataDir,
    env: { DATA_DIR: dataDir, ...env },
    process: child,
    output,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    async killGroup() {
      if (child.exitCode === null && child.signalCode === null && child.pid)
        process.kill(-child.pid, 'SIGKILL')
      await exited
    },
    async cleanup() {
      await end('SIGTERM')
      await stopLeftPostmaster(dataDir)
      await fresh?.cleanup()
    },
  }
}
