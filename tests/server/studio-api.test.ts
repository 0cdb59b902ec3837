import { readdir } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCliProcess } from '../../harness/waitlist-cli'
import { STUDIO_DIST_DIR } from '../../owner/studio-server/studio-files'

afterAll(async () => {
  await stopBackends()
})

describe.each(BACKENDS)('the studio API on $name', ({ name }) => {
  let server: TestServer
  let studio: StudioProcess
  const fromPublicSite = new Map<string, number>()
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${studio.origin}${path}`, {
      ...init,
      // As the studio's page sends them: its browser adds Sec-Fetch-Site, the page the Bearer token.
      headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}`, ...init.headers },
    })

  beforeAll(async () => {
    server = await startServerOn(name)
    for (const email of ['Mixed.Case@Example.com', 'percent%under_score@example.com', 'plain@example.com'])
      expect((await postWaitlist(server, { email })).status).toBe(201)
    const assets = await readdir(join(STUDIO_DIST_DIR, 'assets'))
    for (const path of [
      '/studio/',
      '/studio/index.html',
      ...assets.map((asset) => `/studio/assets/${asset}`),
    ])
      fromPublicSite.set(path, (await fetch(`${server.url}${path}`)).status)
    // Beside the running server, as the owner uses it (studio-restart.test.ts: without one).
    studio = await startStudioProcess(server.env)
  })
  afterAll(async () => {
    await studio?.stop()
    await server?.cleanup()
  })

  it('is served by the studio alone: the public site answers 404 for its files', () => {
    expect(fromPublicSite.size).toBeGreaterThanOrEqual(4)
    for (const [path, status] of fromPublicSite) expect(status, path).toBe(404)
  })

  it('opens a session once per link, and takes it as a Bearer only from its own page: no cookie, no query, no other site', async () => {
    expect((await api('/api/summary')).status).toBe(200)
    expect((await api('/api/summary', { headers: { 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(403)
    const noBearer = { 'Sec-Fetch-Site': 'same-origin' }
    const asCookie = await fetch(`${studio.origin}/api/summary`, {
      headers: { ...noBearer, Cookie: `studio_token_${studio.port}=${studio.token}` },
    })
    expect(asCookie.status).toBe(401)
    const inQuery = await fetch(`${studio.origin}/api/summary?token=${studio.token}`, { headers: noBearer })
    expect(inQuery.status).toBe(401)
    // The printed link carries its token in the fragment, which no request sends; it opens one
    // session, once, and the page sets no cookie.
    expect(studio.url).toMatch(new RegExp(`^${studio.origin}/#token=[\\w-]{43}$`))
    const link = new URL(studio.url).hash.slice('#token='.length)
    const open = () =>
      fetch(`${studio.origin}/auth/local`, {
        method: 'POST',
        headers: { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: link }),
      })
    const first = await open()
    expect(first.status).toBe(200)
    const { session } = (await first.json()) as { session: string }
    expect(session).not.toBe(link)
    const me = await api('/api/me', { headers: { Authorization: `Bearer ${session}` } })
    expect(await me.json()).toEqual({ email: expect.stringMatching(/^cli:/), role: 'owner' })
    expect((await open()).status).toBe(403)
    const page = await fetch(studio.url)
    expect(page.status).toBe(200)
    expect(page.headers.get('set-cookie')).toBeNull()
    // Every answer is private: no cache keeps it, or hands it to a caller with another token.
    for (const answer of [page, await api('/api/summary'), await api('/api/entries?page=0')]) {
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(answer.headers.get('vary')).toBe('Authorization, apikey')
    }
  })

  it('searches literally: % and _ are not wildcards', async () => {
    const search = async (q: string) =>
      ((await (await api(`/api/entries?q=${encodeURIComponent(q)}`)).json()) as { matching: number }).matching
    expect(await search('t%u')).toBe(1)
    expect(await search('r_s')).toBe(1)
    expect(await search('mixed.CASE')).toBe(1)
    expect(await search('')).toBe(3)
    // One or two characters match the start of the address or of its domain, literally too.
    expect(await search('%')).toBe(0)
    expect(await search('PE')).toBe(1)
    expect(await search('ex')).toBe(3)
    expect(await search('@e')).toBe(3)
  })

  it('answers bad input with 400 and a message, and stays up', async () => {
    for (const path of [
      '/api/summary?days=7',
      '/api/entries?after=2',
      '/api/entries?before=x',
      '/api/entries?after=2024-11-01T09:00:00.000000Z_1&before=2024-11-01T09:00:00.000000Z_2',
      `/api/entries?q=${'a'.repeat(300)}`,
    ]) {
      const response = await api(path)
      expect(response.status, path).toBe(400)
      expect(((await response.json()) as { error: string }).error).toBeTruthy()
    }
    const notJson = await api('/api/remove', { method: 'POST', body: 'email=plain@example.com' })
    expect(notJson.status).toBe(415)
    const badJson = await api('/api/remove', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"email":',
    })
    expect(badJson.status).toBe(400)
    expect((await api('/api/summary?days=all')).status).toBe(200)
  })

  it('previews and queues an invitation with no sender yet, saying they wait for one (nothing refused)', async () => {
    const preview = await api('/api/invite/preview?count=2')
    expect(preview.status).toBe(200)
    const shown = (await preview.json()) as { count: number; subject: string; cannotSend: string | null }
    expect(shown).toMatchObject({ count: 2, subject: 'Your invitation to the Tessel Labs private beta' })
    expect(shown.cannotSend).toMatch(/^The last server to start on this database has no SMTP_URL/)
    expect(shown.cannotSend).not.toContain('nothing was queued')
    const html = await fetch(`${studio.origin}/invite-preview.html`)
    expect(html.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'unsafe-inline'/,
    )
    expect(await html.text()).toContain('Open the beta')
    const queued = await api('/api/invite', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"count": 2}',
    })
    expect(queued.status).toBe(200)
    expect(await queued.json()).toMatchObject({ queued: 2, waitsForSender: true })
    const entries = (await (await api('/api/entries')).json()) as { entries: { status: string }[] }
    expect(entries.entries.map((entry) => entry.status).sort()).toEqual(['invited', 'invited', 'waiting'])
    expect((await api('/api/invite/preview?count=0')).status).toBe(400)
  })

  it('removes case-insensitively and says when nothing was there', async () => {
    const remove = async (email: string) =>
      (await (
        await api('/api/remove', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email }),
        })
      ).json()) as { removed: boolean }
    expect(await remove('mixed.case@EXAMPLE.COM')).toEqual({ removed: true })
    expect(await remove('mixed.case@example.com')).toEqual({ removed: false })
    const summary = (await (await api('/api/summary')).json()) as { total: number; days: unknown[] }
    expect(summary.total).toBe(2)
    expect(summary.days).toHaveLength(30)
  })

  it('has the Activity page: the record names the one who started it, cli: and the OS user', async () => {
    const page = await fetch(`${studio.origin}/activity`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const activity = await api('/api/activity')
    expect(activity.status).toBe(200)
    const { lines } = (await activity.json()) as { lines: { actor: string; action: string }[] }
    expect(lines.find((line) => line.action === 'remove')?.actor).toMatch(/^cli:/)
    // The team's own rows are the team studio's: the local studio has no member to run them.
    expect((await api('/api/team')).status).toBe(404)
  })
})

describe.each(BACKENDS)('the studio command on $name', ({ name }) => {
  let blocker: Server
  afterAll(() => new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve())))

  it('says so plainly when its port is taken, and exits non-zero', async () => {
    blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    const server = await startServerOn(name)
    await server.stop()
    try {
      const result = await runCliProcess(server.env, 'studio', '--port', String(port))
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`)
      expect(result.stderr).toContain('--port 3002')
      const bad = await runCliProcess(server.env, 'studio', '--port', 'eighty')
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('--port needs a port number')
    } finally {
      await server.cleanup()
    }
  })
})
