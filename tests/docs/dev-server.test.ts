import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../server/boot/paths'
import { watchOutput } from '../support/child-output'
import { freshDataDir } from '../support/data-dir'
import { freePort } from '../support/postgres-cluster'

/**
 * `npm run dev` answers what `npm start` answers, through Vite's proxy: the REST API, the no-script
 * POST /, /mcp, /healthz and the rate limit (docs/operations.md lists what differs). Vite's start
 * and its first transform take seconds: in `npm run test:slow`.
 */
describe('npm run dev', () => {
  let url: string
  let stop: () => Promise<void>
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const data = await freshDataDir()
    cleanup = data.cleanup
    const port = await freePort()
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/boot/dev.ts'], {
      cwd: ROOT,
      // NO_COLOR: under CI=true Vite colours its output, which would split the URL read below.
      env: {
        ...process.env,
        NODE_ENV: 'test',
        NO_COLOR: '1',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: data.dir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = once(child, 'exit')
    stop = async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    }
    const { found } = watchOutput(child, /Local:\s+(http:\/\/\S+?)\/?\s/, 60_000, 'npm run dev')
    url = (await found).replace(/\/$/, '')
  }, 90_000)
  afterAll(async () => {
    await stop?.()
    await cleanup?.()
  })

  it('serves the page with its anon key, and proxies the REST insert, /healthz and /mcp', async () => {
    const html = await (await fetch(`${url}/`)).text()
    const key = /<meta name="supabase-anon-key" content="([^"]+)"/.exec(html)?.[1] ?? ''
    expect(key).toMatch(/^eyJ/)
    const insert = () =>
      fetch(`${url}/rest/v1/waitlist`, {
        method: 'POST',
        headers: { apikey: key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'dev.rest@example.com' }),
      })
    expect((await insert()).status).toBe(201)
    expect((await insert()).status).toBe(409)
    const health = await fetch(`${url}/healthz`)
    expect(health.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await health.json()).toEqual({ status: 'ok' })
    const mcp = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Origin: url,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(mcp.status).toBe(200)
    expect(JSON.stringify(await mcp.json())).toContain('request_beta_access')
    // /mcp's server card, as the plugin writes it, naming the dev server's own /mcp.
    const card = await fetch(`${url}/mcp/server-card`)
    expect(card.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect(await card.json()).toMatchObject({ remotes: [{ type: 'streamable-http', url: `${url}/mcp` }] })
  })

  it('takes the no-script form, under the same rate limit as npm start', async () => {
    const post = (email: string) =>
      fetch(`${url}/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }),
        redirect: 'manual',
      })
    const first = await post('dev.form@example.com')
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/?waitlist=submitted')
    // The burst is 5 writes per address, and the two inserts above spent two of them.
    const later = [] as (string | null)[]
    for (let i = 0; i < 4; i++) later.push((await post(`dev.form.${i}@example.com`)).headers.get('location'))
    expect(later.slice(0, 2)).toEqual(['/?waitlist=submitted', '/?waitlist=submitted'])
    expect(later.at(-1)).toBe('/?waitlist=error')
  })
})
