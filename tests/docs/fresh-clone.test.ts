import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { watchOutput } from '../../harness/child-output'
import { freePort } from '../../harness/postgres-cluster'
import { ROOT } from '../../server/base/paths'

/**
 * The README's and docs/deploy.md's commands, run on a fresh copy of the tree as a new user runs
 * them, so the docs cannot drift from what works: `npm install && npm start` as root in a private
 * directory such as /root (twice: the data stays), the CDN build, several servers on one database,
 * the install with npm 10 as with npm 11, and the systemd unit's ExecStart with its environment.
 * Installs from the registry and builds: minutes, so in `npm run test:slow`.
 */
const exec = promisify(execFile)
const MINUTES = 60_000
const asRoot = process.getuid?.() === 0
const NOBODY = { uid: 65534, gid: 65534 }

afterAll(stopBackends)
if (!asRoot)
  console.warn(
    'tests/docs/fresh-clone.test.ts: the /root clone and the service user need root; those cases are skipped.',
  )

/** The committed tree plus the work in progress, as `git clone` would give it, into `dir`. */
async function freshTree(dir: string): Promise<string> {
  const stash = (await exec('git', ['stash', 'create'], { cwd: ROOT })).stdout.trim()
  const archive = `${dir}.tar`
  await exec('git', ['archive', '--format=tar', '-o', archive, stash || 'HEAD'], { cwd: ROOT })
  await mkdir(dir, { recursive: true })
  await exec('tar', ['-xf', archive, '-C', dir])
  await rm(archive, { force: true })
  return dir
}

/** The environment of a shell a newcomer opens: none of the test runner's settings for the server. */
function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of ['PATH', 'HOME', 'LANG', 'TERM', 'npm_config_cache', 'CHROME_PATH'])
    if (process.env[name]) env[name] = process.env[name] as string
  return { ...env, ...extra }
}

async function sh(cwd: string, command: string, env: Record<string, string>, timeout = 10 * MINUTES) {
  return exec('sh', ['-c', command], { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 })
}

interface Started {
  child: ChildProcess
  url: string
  output(): string
  stop(): Promise<void>
}

/** A command that ends up serving (npm start, the unit's ExecStart), until "Serving http://…". */
async function serving(
  cwd: string,
  command: string[],
  env: Record<string, string>,
  user?: typeof NOBODY,
): Promise<Started> {
  const child = spawn(command[0] as string, command.slice(1), {
    cwd,
    env,
    ...user,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const { found, output } = watchOutput(child, /Serving (http:\/\/\S+)/, 3 * MINUTES, command.join(' '))
  const exited = once(child, 'exit')
  const url = await found.catch(async (error: unknown) => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL')
    throw error
  })
  return {
    child,
    url,
    output,
    async stop() {
      // The group: npm start runs the server under npm and sh, as in a terminal's Ctrl-C.
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM')
      await exited
      // npm exits on the signal at once (6-8 ms); the server under it finishes its requests and
      // closes the database in about 1.2-1.6 s, holding DATA_DIR's lock until then. A start before
      // that is refused ("in use by another server"), as CI once was: wait for the whole group.
      if (child.pid) await groupGone(child.pid)
    },
  }
}

/** Resolves once no process of the group `pgid` is left; fails after 30 s. */
async function groupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      process.kill(-pgid, 0)
    } catch {
      return
    }
    if (Date.now() > deadline) throw new Error(`the processes of group ${pgid} still run 30 s after SIGTERM`)
    await sleep(50)
  }
}

/** npm start's bundles of the server (build/start.mjs), one folder per content. */
const bundleCache = (clone: string) => join(clone, 'node_modules', '.cache', 'lab-site-server')
const bundlesIn = async (clone: string) =>
  (await readdir(bundleCache(clone))).filter((name) => name.startsWith('server-'))

async function pageKey(url: string): Promise<string> {
  const html = await (await fetch(`${url}/`)).text()
  return /<meta name="supabase-anon-key" content="([^"]+)"/.exec(html)?.[1] ?? ''
}

function insert(url: string, key: string, email: string): Promise<number> {
  return fetch(`${url}/rest/v1/waitlist`, {
    method: 'POST',
    headers: { apikey: key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email }),
  }).then((response) => response.status)
}

describe.runIf(asRoot)('the README as root, in a clone under a private directory such as /root', () => {
  let parent: string
  let clone: string
  let dataHome: string | undefined
  beforeAll(async () => {
    parent = await mkdtemp('/root/lab-site-docs-')
    await chmod(parent, 0o700)
    clone = await freshTree(join(parent, 'lab-site'))
    // A clean, exact install with npm 11 (the other major, 10, installs the deploy guide's checkout
    // below). On the Node 20 the README allows, nothing may ask for a newer one; and every install
    // script is one package.json's allowScripts approves (npm 11 warns of any other).
    const installed = await sh(clone, 'npx -y npm@11 ci --no-audit --no-fund', plainEnv())
    expect(`${installed.stdout}${installed.stderr}`).not.toContain('EBADENGINE')
    expect(`${installed.stdout}${installed.stderr}`).not.toContain('allowScripts')
  }, 12 * MINUTES)
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true })
    if (dataHome) await rm(dataHome, { recursive: true, force: true })
  })

  it(
    'npm start serves the page (200), says where the data went, and keeps it across a restart',
    async () => {
      const env = plainEnv({ PORT: String(await freePort()) })
      const first = await serving(clone, ['npm', 'start'], env)
      dataHome = /the data is kept in (\S+) instead/.exec(first.output())?.[1]
      expect(dataHome, first.output()).toMatch(/^\/var\/lib\/lab-site-data\/lab-site-[0-9a-f]{8}$/)
      expect((await fetch(`${first.url}/`)).status).toBe(200)
      const key = await pageKey(first.url)
      expect(await insert(first.url, key, 'first.start@example.com')).toBe(201)
      await first.stop()

      const second = await serving(clone, ['npm', 'start'], env)
      expect(second.output()).toContain(`the data is kept in ${dataHome} instead`)
      // The first stopped PostgreSQL cleanly: nothing was left running for this start to clear.
      expect(second.output()).not.toContain('left running')
      expect(await insert(second.url, await pageKey(second.url), 'first.start@example.com')).toBe(409)
      await second.stop()
      expect(await readdir(clone)).not.toContain('data')
      // Both starts ran the one bundle the first made.
      expect(await bundlesIn(clone)).toHaveLength(1)
    },
    6 * MINUTES,
  )

  it(
    'npm run build:cdn writes a dist/ with no placeholder and no /mcp',
    async () => {
      const env = plainEnv({
        SITE_URL: 'https://lab.example.com',
        VITE_SUPABASE_URL: 'https://abcdefgh.supabase.co',
        VITE_SUPABASE_ANON_KEY: 'anon-key-of-the-project',
      })
      await sh(clone, 'npm run build:cdn', env)
      const found = await sh(clone, "grep -rlE '__SITE_URL__|lab.example.com/mcp' dist || true", env)
      expect(found.stdout).toBe('')
      expect(await readdir(join(clone, 'dist'))).toContain('404.html')
    },
    3 * MINUTES,
  )

  it(
    'several servers on one DATABASE_URL, no JWT_SECRET: a key from one works at the other',
    async () => {
      const url = await sharedPostgresUrl({ migrated: false })
      const env = async () => plainEnv({ DATABASE_URL: url, PORT: String(await freePort()) })
      // npm start rebuilds the server's own dist after the CDN build above.
      const a = await serving(clone, ['npm', 'start'], await env())
      const b = await serving(clone, ['npm', 'start'], await env())
      try {
        expect(await insert(b.url, await pageKey(a.url), 'key.from.a@example.com')).toBe(201)
        expect(await insert(a.url, await pageKey(b.url), 'key.from.b@example.com')).toBe(201)
      } finally {
        await Promise.all([a.stop(), b.stop()])
      }
    },
    6 * MINUTES,
  )

  it(
    'npm start runs the server through tsx where its bundle cannot be written',
    async () => {
      const cache = bundleCache(clone)
      await rename(cache, `${cache}.kept`)
      await writeFile(cache, 'not a folder')
      try {
        const started = await serving(clone, ['npm', 'start'], plainEnv({ PORT: String(await freePort()) }))
        expect(started.output()).toContain(
          "Could not write the server's bundle (ENOTDIR): running it through tsx",
        )
        expect((await fetch(`${started.url}/`)).status).toBe(200)
        await started.stop()
      } finally {
        await rm(cache, { force: true })
        await rename(`${cache}.kept`, cache)
      }
    },
    3 * MINUTES,
  )
})

describe('the deploy guide: npm 10, and the systemd unit without systemd', () => {
  let parent: string
  let checkout: string
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'lab-site-srv-'))
    await chmod(parent, 0o755)
    checkout = await freshTree(join(parent, 'lab-site'))
  }, 2 * MINUTES)
  afterAll(() => rm(parent, { recursive: true, force: true }))

  it(
    'installs with npm 10 as the guide says (npm ci), leaving the lockfile as committed, and builds',
    async () => {
      const lock = await readFile(join(checkout, 'package-lock.json'), 'utf8')
      await sh(checkout, 'npx -y npm@10 ci --no-audit --no-fund', plainEnv())
      expect(await readFile(join(checkout, 'package-lock.json'), 'utf8')).toBe(lock)
      await sh(checkout, 'npm run build', plainEnv())
    },
    12 * MINUTES,
  )

  it.runIf(asRoot)(
    "runs the unit's ExecStart with the unit's environment, as its own user, on a read-only checkout",
    async () => {
      const unit = await readFile(join(checkout, 'deploy/lab-site.service'), 'utf8')
      const setting = (name: string) =>
        [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1] ?? '')
      const state = join(parent, 'state')
      await mkdir(state, { mode: 0o700 })
      await chown(state, NOBODY.uid, NOBODY.gid)
      // The guide's env file: .env.example as it is (the worst case), with the lines an operator edits.
      const port = await freePort()
      const envFile = `${await readFile(join(checkout, '.env.example'), 'utf8')}\nPORT=${port}\nSITE_URL=https://lab.example.com\n`
      const fromFile = Object.fromEntries(
        envFile
          .split('\n')
          .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      )
      const fromUnit = Object.fromEntries(
        setting('Environment').map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
      )
      // systemd's order: the unit's Environment=, then EnvironmentFile= over it. StateDirectory stands in here.
      const env = { ...plainEnv({ HOME: state }), ...fromUnit, ...fromFile }
      expect(fromUnit.DATA_DIR).toBe('/var/lib/lab-site')
      expect(setting('StateDirectory')).toEqual(['lab-site'])
      env.DATA_DIR = env.DATA_DIR === '/var/lib/lab-site' ? state : (env.DATA_DIR ?? '')
      const command = (setting('ExecStart')[0] ?? '').split(' ')
      const service = await serving(checkout, command, env, NOBODY)
      try {
        expect(service.url).toBe(`http://127.0.0.1:${port}`)
        expect((await fetch(`${service.url}/`)).status).toBe(200)
        expect(await readdir(state)).toEqual(expect.arrayContaining(['postgres', 'jwt-secret']))
        expect(await readdir(checkout)).not.toContain('data')
        expect(service.output()).not.toContain('Building the site')
        // The bundle `npm run build` made: nothing to write, no tsx.
        expect(service.output()).not.toContain('running it through tsx')
        expect(command).toEqual(['/usr/bin/node', 'build/start.mjs'])
      } finally {
        await service.stop()
      }
    },
    4 * MINUTES,
  )
})

describe("a git clone: the README's npm install changes nothing in it", () => {
  let clone: string
  beforeAll(async () => {
    clone = join(await mkdtemp(join(tmpdir(), 'lab-site-git-')), 'lab-site')
    // The committed tree as `git clone` gives it (this branch's HEAD), with its .git.
    await exec('git', ['clone', '--quiet', ROOT, clone])
  }, 2 * MINUTES)
  afterAll(() => rm(join(clone, '..'), { recursive: true, force: true }))

  it(
    'npm install with npm 11 leaves git status clean and warns of no install script',
    async () => {
      const installed = await sh(clone, 'npx -y npm@11 install --no-audit --no-fund', plainEnv())
      expect(`${installed.stdout}${installed.stderr}`).not.toContain('allowScripts')
      expect((await exec('git', ['status', '--porcelain'], { cwd: clone })).stdout).toBe('')
    },
    12 * MINUTES,
  )
})
