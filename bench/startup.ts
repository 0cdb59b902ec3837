import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../harness/postgres-cluster'
import { postmasterPid } from '../harness/test-server'
import { DIST_DIR, ROOT } from '../server/base/paths'

/** Milliseconds from spawning the server to its first 200 on each path. */
export interface StartTiming {
  healthzMs: number
  homeMs: number
}

export interface StartedServer {
  timing: StartTiming
  /** SIGTERM and wait (the server stops its cluster); SIGKILL of the group and the postmaster if it hangs. */
  stop(): Promise<void>
}

const POLL_MS = 10
const GIVE_UP_MS = 60_000

/** A new, empty DATA_DIR; as root, the account PostgreSQL runs as must get through it. */
export async function emptyDataDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'lab-site-bench-start-'))
  await chmod(dir, 0o755)
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** The status of a GET, its body drained; 0 while nothing answers. */
export function httpStatus(url: string): Promise<number> {
  return fetch(url).then(
    async (response) => {
      await response.arrayBuffer()
      return response.status
    },
    () => 0,
  )
}

async function firstOk(url: string, started: number, child: ChildProcess, output: () => string) {
  for (const end = started + GIVE_UP_MS; performance.now() < end; await sleep(POLL_MS)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the server exited before answering ${url}:\n${output()}`)
    if ((await httpStatus(url)) === 200) return performance.now() - started
  }
  throw new Error(`no 200 from ${url} within ${GIVE_UP_MS / 1000} s:\n${output()}`)
}

/**
 * Spawns `node build/start.mjs` as `npm start` does (with SKIP_BUILD=1 unless `build`)
 * and polls `/healthz` and `/` every 10 ms until each answers 200.
 */
export async function startAndTime(
  dataDir: string,
  options: {
    build?: boolean /** Told the stop function at once, to stop the server if the bench is cut short. */
    track?: (stop: () => Promise<void>) => void
  } = {},
): Promise<StartedServer> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, ['build/start.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      ...(options.build ? {} : { SKIP_BUILD: '1' }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const exited = once(child, 'exit')
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const hung = await Promise.race([exited.then(() => false), sleep(20_000).then(() => true)])
      if (hung && child.pid) process.kill(-child.pid, 'SIGKILL')
      await exited
    }
    const left = await postmasterPid(dataDir)
    if (left) process.kill(left, 'SIGQUIT')
  }
  options.track?.(stop)
  try {
    const base = `http://127.0.0.1:${port}`
    const [healthzMs, homeMs] = await Promise.all([
      firstOk(`${base}/healthz`, started, child, () => output),
      firstOk(`${base}/`, started, child, () => output),
    ])
    return { timing: { healthzMs, homeMs }, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** `vite build` (what `npm run build` runs), timed; then stamped as the server's own build is. */
export async function timeViteBuild(): Promise<number> {
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  // Vite's timing notes would clutter the bench's log: its output is shown only if it fails.
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`vite build exited with code ${code}:\n${output}`)
  const ms = performance.now() - started
  await writeFile(join(DIST_DIR, '.build-stamp'), new Date().toISOString())
  return ms
}

/** Makes the build look stale, so the next start without SKIP_BUILD builds first, as on a fresh clone. */
export async function markBuildStale(): Promise<void> {
  await rm(join(DIST_DIR, '.build-stamp'), { force: true })
}

/** Spawn to exit of `node build/start.mjs --bundle-only`: the server's bundle, made in every start above. */
export async function timeServerBundle(): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, ['build/start.mjs', '--bundle-only'], { cwd: ROOT, stdio: 'ignore' })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`node build/start.mjs --bundle-only exited with code ${code}`)
  return performance.now() - started
}
