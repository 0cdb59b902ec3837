import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BASE_IMAGE,
  buildImage,
  containerEngine,
  engineRun,
  engineTry,
  imageSize,
  removeAll,
  runArgs,
  volumeDir,
  waitForHealth,
} from '../../harness/container-engine'
import { freePort } from '../../harness/postgres-cluster'
import { parseCsv } from '../../owner/cli/csv-reader'
import { ROOT } from '../../server/base/paths'
import { insertStatus, pool } from '../reliability/support'

/**
 * The image as the deploy guide runs it: built from a clean copy of the tree, run with a volume and
 * a read-only root, killed under load, stopped, and asked for its CLI. Needs podman or docker; here
 * podman builds on the local stand-in for the base image, which .ci/run makes.
 */
const { engine, reason } = containerEngine()
if (!engine) console.warn(`Skipping the container tests: ${reason}.`)

const IMAGE = `localhost/lab-site-test:${process.pid}`
const MiB = 1024 * 1024

interface Keys {
  anonKey: string
  serviceKey: string
}

/** Caddy from the machine (Debian: apt-get install caddy), to run the project's Caddyfile. */
function caddyBinary(): string | undefined {
  try {
    execFileSync('caddy', ['version'], { stdio: 'ignore' })
    return 'caddy'
  } catch {
    return undefined
  }
}
const caddy = caddyBinary()
if (engine && !caddy)
  console.warn('Skipping the test through Caddy: caddy is not installed (Debian: apt-get install caddy).')

/** A plain HTTP GET with a chosen Host header, as a browser behind an SSH tunnel to port 3001 sends it. */
function getWithHost(url: string, host: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const method = body === undefined ? 'GET' : 'POST'
    const req = httpRequest(url, { method, headers: { ...headers, Host: host } }, (response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString()
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

interface HttpsAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
}

/** An HTTPS request to Caddy's internal certificate, from a chosen loopback address. */
function httpsRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.from,
        // Caddy's own local CA signed this certificate ("tls internal"); trusting it is not the point here.
        rejectUnauthorized: false,
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

describe.skipIf(!engine)('the container image', () => {
  const run = (args: string[], timeoutMs?: number) => engineRun(engine as string, args, { timeoutMs })
  const containers: string[] = []
  let work: string

  /** Starts a container of the image on a host volume, published on a free loopback port. */
  async function startContainer(
    name: string,
    data: string,
    env: Record<string, string> = {},
    publish: string[] = [],
  ) {
    const port = await freePort()
    containers.push(name)
    await run(['rm', '-f', name]).catch(() => {})
    await run(runArgs({ image: IMAGE, name, data, port, env, publish }))
    return { name, url: `http://127.0.0.1:${port}` }
  }

  async function keysOf(name: string): Promise<Keys> {
    const printed = await run(['exec', name, 'waitlist', 'keys'])
    const [anonKey, serviceKey] = printed.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g) ?? []
    if (!anonKey || !serviceKey) throw new Error(`no keys in:\n${printed}`)
    return { anonKey, serviceKey }
  }

  /**
   * The stored addresses, oldest first, as the owner's export reads them inside the container: the
   * database runs in the container's namespaces, where the host does not reach it.
   */
  async function exportedEmails(name: string): Promise<string[]> {
    const [, ...records] = parseCsv(await run(['exec', name, 'waitlist', 'export']))
    return records.map(([email]) => email ?? '')
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'lab-site-container-'))
    await buildImage(engine as string, IMAGE, ROOT)
  }, 16 * 60_000)

  afterAll(() => removeAll(engine as string, containers, IMAGE, work), 120_000)

  it('runs as the unprivileged node user and stays within 100 MiB of its base image', async () => {
    expect((await run(['image', 'inspect', '--format', '{{.Config.User}}', IMAGE])).trim()).toBe('node')
    const above = (await imageSize(engine as string, IMAGE)) - (await imageSize(engine as string, BASE_IMAGE))
    console.info(`image: ${(above / MiB).toFixed(1)} MiB above ${BASE_IMAGE}`)
    expect(above).toBeLessThanOrEqual(100 * MiB)
  })

  it('serves on a read-only root: the page, an insert, the same address in capitals, the health check, the CLI', async () => {
    const data = await volumeDir(work, 'serve')
    const studioPort = await freePort()
    const site = await startContainer(
      `lab-site-test-serve-${process.pid}`,
      data,
      { RATE_LIMIT_PER_MINUTE: '0' },
      ['-p', `127.0.0.1:${studioPort}:3001`],
    )
    await waitForHealth(site.url)
    expect((await fetch(`${site.url}/`)).status).toBe(200)
    expect((await fetch(`${site.url}/nope`)).status).toBe(404)
    const target = { url: site.url, ...(await keysOf(site.name)) }
    expect(await insertStatus(target, 'ada@example.com')).toBe(201)
    expect(await insertStatus(target, 'ADA@EXAMPLE.COM')).toBe(409)
    expect((await engineTry(engine as string, ['healthcheck', 'run', site.name])).code).toBe(0)
    // PID 1 is tini, which reaps orphans; every process (tini, Node, PostgreSQL) runs as node.
    expect(await run(['exec', site.name, 'cat', '/proc/1/cmdline'])).toMatch(/^\/usr\/bin\/tini\0/)
    const owners = await run([
      'exec',
      site.name,
      'sh',
      '-c',
      'stat -c %U /proc/[0-9]*/ 2>/dev/null | sort -u',
    ])
    expect(owners.trim()).toBe('node')

    // The owner's commands through exec, as the deploy guide gives them.
    expect((await run(['exec', site.name, 'waitlist', 'count'])).trim()).toBe('1')
    expect((await run(['exec', site.name, 'npm', 'run', '--silent', 'waitlist', '--', 'count'])).trim()).toBe(
      '1',
    )
    const csv = 'email,created_at\r\ngrace@example.com,2024-11-20T10:00:00.000Z\r\n'
    await engineRun(engine as string, ['exec', '-i', site.name, 'sh', '-c', 'cat > /tmp/in.csv'], {
      input: csv,
    })
    expect(await run(['exec', site.name, 'waitlist', 'import', '/tmp/in.csv'])).toMatch(/1/)
    const exported = await run(['exec', site.name, 'waitlist', 'export'])
    expect(exported).toContain('grace@example.com')
    expect(exported).toContain('ada@example.com')
    await run(['exec', site.name, 'waitlist', 'remove', 'Grace@Example.com'])
    expect(await exportedEmails(site.name)).toEqual(['ada@example.com'])
    // The studio as docs/deploy.md starts it: inside the container on 0.0.0.0:3001, published on the
    // host's loopback; a browser through an SSH tunnel to 3001 sends Host 127.0.0.1:3001.
    await run([
      'exec',
      '-d',
      site.name,
      'sh',
      '-c',
      'waitlist studio --host 0.0.0.0 --port 3001 > /tmp/studio.log 2>&1',
    ])
    let printed = ''
    for (const end = Date.now() + 30_000; !printed.includes('#token=') && Date.now() < end; await sleep(200))
      printed = await run(['exec', site.name, 'cat', '/tmp/studio.log']).catch(() => '')
    const token = /#token=([\w-]+)/.exec(printed)?.[1]
    expect(token, printed).toBeDefined()
    const studio = `http://127.0.0.1:${studioPort}`
    expect((await getWithHost(`${studio}/`, '127.0.0.1:3001')).status).toBe(200)
    expect((await getWithHost(`${studio}/`, 'evil.example:3001')).status).toBe(403)
    // The printed link's token opens one owner session, as the studio's page does (ADR 112).
    const opened = await getWithHost(
      `${studio}/auth/local`,
      '127.0.0.1:3001',
      { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
      JSON.stringify({ token }),
    )
    const session = (JSON.parse(opened.body) as { session?: string }).session
    expect(session, opened.body).toBeDefined()
    const apiHeaders = { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${session}` }
    const summary = await getWithHost(`${studio}/api/summary`, '127.0.0.1:3001', apiHeaders)
    expect(summary.status).toBe(200)
    expect(summary.body).toContain('"total":1')
    expect(
      (await getWithHost(`${studio}/api/summary`, '127.0.0.1:3001', { 'Sec-Fetch-Site': 'same-origin' }))
        .status,
    ).toBe(401)

    // Nothing outside /data and /tmp was written: the root is read-only, and the server said nothing of it.
    expect((await engineTry(engine as string, ['logs', site.name])).output).not.toMatch(
      /EROFS|read-only file system/i,
    )
  })

  it('kill -s KILL under 10 clients, then a start on the same volume: every acknowledged signup is there', async () => {
    const data = await volumeDir(work, 'kill')
    const site = await startContainer(`lab-site-test-kill-${process.pid}`, data, {
      RATE_LIMIT_PER_MINUTE: '0',
    })
    await waitForHealth(site.url)
    const keys = await keysOf(site.name)
    const target = { url: site.url, ...keys }
    const acknowledged: string[] = []
    let killed = false
    const killing = (async () => {
      while (acknowledged.length < 150) await sleep(20)
      await run(['kill', '-s', 'KILL', site.name])
      killed = true
    })()
    const client = async (client: number) => {
      for (let i = 0; !killed; i++) {
        const email = `c${client}-${i}@example.com`
        const status = await insertStatus(target, email).catch(() => 0)
        if (status === 201) acknowledged.push(email)
        else if (status === 0) await sleep(20)
      }
    }
    await Promise.all([
      killing,
      pool(
        10,
        Array.from({ length: 10 }, (_, n) => () => client(n)),
      ),
    ])
    expect(acknowledged.length).toBeGreaterThanOrEqual(150)

    await run(['start', site.name])
    await waitForHealth(site.url)
    const stored = new Set(await exportedEmails(site.name))
    const lost = acknowledged.filter((email) => !stored.has(email))
    console.info(`container kill: ${acknowledged.length} acknowledged, ${lost.length} lost`)
    expect(lost).toEqual([])
    expect((await run(['exec', site.name, 'waitlist', 'count'])).trim()).toBe(String(stored.size))
  })

  it('docker stop: exit code 0 within the 10 s grace, PostgreSQL shut down cleanly', async () => {
    const data = await volumeDir(work, 'stop')
    const site = await startContainer(`lab-site-test-stop-${process.pid}`, data)
    await waitForHealth(site.url)
    // Past the 10 s grace the engine would SIGKILL, and the exit code would be 137, not 0.
    await run(['stop', '-t', '10', site.name], 60_000)
    const state = await run(['inspect', '--format', '{{.State.ExitCode}}', site.name])
    expect(state.trim()).toBe('0')
    const log = await readFile(join(data, 'postgres.log'), 'utf8')
    expect(log.trim().split('\n').at(-1)).toMatch(/database system is shut down/)
  })

  it('a volume the node user cannot write: one clear message naming uid 1000 and the chown, exit non-zero', async () => {
    const data = await volumeDir(work, 'root-owned', 0)
    const site = await startContainer(`lab-site-test-rootvol-${process.pid}`, data)
    const exit = await run(['wait', site.name], 60_000)
    expect(Number(exit.trim())).not.toBe(0)
    const { output: logs } = await engineTry(engine as string, ['logs', site.name])
    expect(logs).toMatch(/1000/)
    expect(logs).toMatch(/chown/)
    expect(logs).not.toMatch(/^\s+at /m)
  })

  it.skipIf(!caddy)(
    "behind Caddy with the project's Caddyfile: HTTPS 200, HSTS, an insert, the rate limit per forwarded client",
    async () => {
      const data = await volumeDir(work, 'caddy')
      // The site as compose.yaml configures it behind Caddy, with the default rate limit (10 a minute, burst 5).
      const site = await startContainer(`lab-site-test-caddy-${process.pid}`, data, {
        TRUST_PROXY_HEADER: 'x-forwarded-for',
        HSTS: 'true',
      })
      await waitForHealth(site.url)
      const { anonKey } = await keysOf(site.name)
      const [httpPort, httpsPort] = [await freePort(), await freePort()]
      // The repository's Caddyfile as it is; only global options for a test: loopback, free ports, its
      // own local CA instead of a public one ("tls internal" for every site), no admin endpoint.
      const caddyDir = join(work, 'caddy-config')
      await mkdir(caddyDir)
      const globals = `{\n\tadmin off\n\thttp_port ${httpPort}\n\thttps_port ${httpsPort}\n\tdefault_bind 127.0.0.1\n\tlocal_certs\n\tskip_install_trust\n}\n`
      const caddyfile = join(caddyDir, 'Caddyfile')
      await writeFile(caddyfile, globals + (await readFile(join(ROOT, 'deploy', 'Caddyfile'), 'utf8')))
      let proxy: ChildProcess | undefined
      try {
        let caddyLog = ''
        proxy = spawn(caddy as string, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
          env: {
            PATH: process.env.PATH,
            HOME: caddyDir,
            XDG_DATA_HOME: join(caddyDir, 'data'),
            XDG_CONFIG_HOME: join(caddyDir, 'config'),
            SITE_DOMAIN: 'localhost',
            SITE_UPSTREAM: new URL(site.url).host,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        proxy.stderr?.on('data', (chunk: Buffer) => {
          caddyLog += chunk.toString()
        })
        const base = `https://localhost:${httpsPort}`
        let home: HttpsAnswer | undefined
        for (const end = Date.now() + 30_000; !home && Date.now() < end; await sleep(200))
          home = await httpsRequest(`${base}/`).catch(() => undefined)
        expect(home?.status, caddyLog).toBe(200)
        expect(String(home?.headers['strict-transport-security'])).toMatch(/max-age=\d+/)

        const insert = (email: string, from: string, headers: Record<string, string> = {}) =>
          httpsRequest(`${base}/rest/v1/waitlist`, {
            method: 'POST',
            from,
            headers: {
              apikey: anonKey,
              Authorization: `Bearer ${anonKey}`,
              'Content-Type': 'application/json',
              Prefer: 'return=minimal',
              ...headers,
            },
            body: JSON.stringify({ email }),
          }).then((answer) => answer.status)
        // One client spends its burst of 5; a forged X-Forwarded-For does not buy it a fresh one,
        // since Caddy replaces the header of a client it does not trust.
        const first: number[] = []
        for (let i = 0; i < 6; i++) first.push(await insert(`one-${i}@example.com`, '127.0.0.1'))
        expect(first).toEqual([201, 201, 201, 201, 201, 429])
        expect(await insert('forged@example.com', '127.0.0.1', { 'X-Forwarded-For': '203.0.113.9' })).toBe(
          429,
        )
        // Another client address, through the same proxy, has its own limit: the site counts the forwarded one.
        expect(await insert('two@example.com', '127.0.0.2')).toBe(201)
      } finally {
        proxy?.kill('SIGTERM')
      }
    },
  )
})
