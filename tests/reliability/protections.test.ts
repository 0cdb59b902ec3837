import { createHash } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServerOn, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { loadApiKeys, signKey } from '../../server/auth/api-keys'
import {
  expectBurstThenRefused,
  expectNoEmail,
  expectPostgrestShape,
  expectRowsCharged,
  healthy,
  heldConnections,
  insert,
  insertStatus,
  rawRequest,
  rowCount,
  stalledClient,
} from './support'

/** Default trust (none), the default rate, and short slow-client timeouts. */
let plain: TestServer
/** Behind a proxy that sets X-Forwarded-For (and X-Forwarded-Proto); short slow-client timeouts and a tiny queue. */
let proxied: TestServer
/** A tiny database queue, HSTS forced, built for a hosted Supabase project; on DATABASE_URL, so a test can reach its database. */
let gated: TestServer
/** The default limit (10 a minute, burst 5), behind a proxy so each test part is its own client. */
let bulk: TestServer

beforeAll(async () => {
  ;[plain, proxied, gated, bulk] = await Promise.all([
    startTestServer({
      env: { RATE_LIMIT_PER_MINUTE: '10', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' },
    }),
    startTestServer({
      env: {
        RATE_LIMIT_PER_MINUTE: '10',
        RATE_LIMIT_BURST: '2',
        TRUST_PROXY_HEADER: 'X-Forwarded-For',
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
        DB_QUEUE_LIMIT: '3',
      },
    }),
    startServerOn('postgres', {
      env: { DB_QUEUE_LIMIT: '3', HSTS: 'true', VITE_SUPABASE_URL: 'https://abcdefgh.supabase.co' },
    }),
    startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '10', TRUST_PROXY_HEADER: 'X-Forwarded-For' } }),
  ])
})
afterAll(async () => {
  await Promise.all([plain, proxied, gated, bulk].map((server) => server?.cleanup()))
  await stopBackends()
})

function postForm(server: TestServer, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  })
}

describe('rate limit', () => {
  it('allows the burst, then answers 429 with Retry-After, ignoring an untrusted X-Forwarded-For', async () => {
    // A different forwarded address each time: not trusted by default, so all count as one client.
    await expectBurstThenRefused((i) =>
      insert(plain, { email: `limit.${i}@example.com` }, { 'X-Forwarded-For': `198.51.100.${i}` }),
    )
    // The no-script form is limited too: it goes back to the page with the error outcome.
    const form = await postForm(plain, { email: 'limit.form@example.com' })
    expect(form.status).toBe(303)
    expect(form.headers.get('location')).toBe('/?waitlist=error')
    expect(await rowCount(plain)).toBe(5)
    // Reads are not writes, and the page still loads.
    expect((await fetch(`${plain.url}/`)).status).toBe(200)
  })

  it('keys on the configured proxy header, read from the right (the proxy-appended entry)', async () => {
    const from = (address: string) => ({ 'X-Forwarded-For': address })
    const a = [1, 2, 3].map((i) => `proxy.a${i}@example.com`)
    const statusesA = []
    for (const email of a) statusesA.push(await insertStatus(proxied, email, from('203.0.113.10')))
    expect(statusesA).toEqual([201, 201, 429])
    // A client cannot escape its bucket by prepending addresses of its own choosing.
    expect(await insertStatus(proxied, 'proxy.a4@example.com', from('192.0.2.1, 203.0.113.10'))).toBe(429)
    // Another client is not affected; IPv6 clients are limited per /64.
    expect(await insertStatus(proxied, 'proxy.b1@example.com', from('203.0.113.11'))).toBe(201)
    expect(await insertStatus(proxied, 'proxy.c1@example.com', from('2001:db8:1:2::1'))).toBe(201)
    expect(await insertStatus(proxied, 'proxy.c2@example.com', from('2001:db8:1:2::ffff'))).toBe(201)
    expect(await insertStatus(proxied, 'proxy.c3@example.com', from('2001:db8:1:2:aaaa::9'))).toBe(429)
  })
})

describe('the client key', () => {
  it('is one bucket for an address with a port, its IPv4-mapped IPv6 form and the plain address', async () => {
    const from = (address: string) => ({ 'X-Forwarded-For': address })
    let sent = 0
    const tries = async (spellings: string[]) => {
      const statuses: string[] = []
      for (const spelling of spellings)
        statuses.push(
          `${spelling} ${await insertStatus(proxied, `key.${sent++}@example.com`, from(spelling))}`,
        )
      return statuses
    }
    // The burst is 2: the third spelling of one client is its third request.
    expect(await tries(['10.0.0.9:40001', '10.0.0.9:40002', '10.0.0.9'])).toEqual([
      '10.0.0.9:40001 201',
      '10.0.0.9:40002 201',
      '10.0.0.9 429',
    ])
    expect(await tries(['::ffff:10.0.1.9', '[::ffff:a00:109]:443', '10.0.1.9'])).toEqual([
      '::ffff:10.0.1.9 201',
      '[::ffff:a00:109]:443 201',
      '10.0.1.9 429',
    ])
    expect(await tries(['[2001:db8:9::1]:443', '[2001:db8:9::1]:444', '2001:db8:9::1'])).toEqual([
      '[2001:db8:9::1]:443 201',
      '[2001:db8:9::1]:444 201',
      '2001:db8:9::1 429',
    ])
    // Another client is not affected.
    expect(await insertStatus(proxied, 'key.other@example.com', from('10.0.0.10:40001'))).toBe(201)
  })
})

describe('rate limit on array inserts', () => {
  const rows = (count: number, tag: string) =>
    Array.from({ length: count }, (_, i) => ({ email: `bulk.${tag}.${i}@example.com` }))
  const from = (address: string) => ({ 'X-Forwarded-For': address })

  it('charges anon one token per row: three arrays of 50 add nothing, small arrays fit the burst', async () => {
    const started = Date.now()
    for (let i = 0; i < 3; i++) {
      const response = await insert(bulk, rows(50, `anon${i}`), from('203.0.113.20'))
      expect(response.status).toBe(429)
      const body = await expectPostgrestShape(response, 'array past the burst')
      expect(body.code).toBe('PGRST429')
      expect(body.message).toBe('Too many rows in one request: at most 5 with this key')
    }
    expect(await rowCount(bulk)).toBe(0)

    // A fresh client: 3 rows take 3 of its 5 tokens; the next 3-row array finds too few (the
    // request's own token is spent, nothing is written); one more single row fits, then none.
    await expectRowsCharged(bulk, bulk, 'bulk', from('203.0.113.21'))
    // At most the burst, plus one token per 6 s that passed (10 a minute), landed in all.
    const refilled = Math.floor((Date.now() - started) / 6000)
    const landed = await rowCount(bulk)
    expect(landed).toBe(4)
    expect(landed).toBeLessThanOrEqual(5 + refilled)
  })

  it('charges the authenticated role the same way', async () => {
    const { secret } = await loadApiKeys({ dataDir: bulk.dataDir, databaseUrl: undefined })
    const authenticated = await signKey(secret, 'authenticated')
    const before = await rowCount(bulk)
    const response = await insert(bulk, rows(6, 'auth'), {
      ...from('203.0.113.22'),
      apikey: bulk.anonKey,
      Authorization: `Bearer ${authenticated}`,
    })
    expect(response.status).toBe(429)
    expect(await rowCount(bulk)).toBe(before)
  })

  it('keeps bulk inserts for service_role: 50 rows a request, request after request, from one address', async () => {
    const before = await rowCount(bulk)
    const service = { apikey: bulk.serviceKey, Authorization: `Bearer ${bulk.serviceKey}` }
    // More requests than the burst: the owner's key takes nothing from the address's bucket.
    for (let i = 0; i < 8; i++) {
      const response = await insert(bulk, rows(50, `service${i}`), { ...from('203.0.113.23'), ...service })
      expect(response.status).toBe(201)
    }
    expect(await rowCount(bulk)).toBe(before + 400)
    // The same address with the anon key still meets the limit, and a forged service_role key too.
    for (let i = 0; i < 5; i++)
      expect(await insertStatus(bulk, `after.service.${i}@example.com`, from('203.0.113.23'))).toBe(201)
    expect(await insertStatus(bulk, 'after.service.5@example.com', from('203.0.113.23'))).toBe(429)
    const forged = { apikey: `${bulk.serviceKey.slice(0, -4)}AAAA`, ...from('203.0.113.24') }
    for (let i = 0; i < 5; i++) expect((await insert(bulk, rows(1, `forged${i}`), forged)).status).toBe(401)
    expect((await insert(bulk, rows(1, 'forged5'), forged)).status).toBe(429)
  })
})

describe('honeypot on the no-script form', () => {
  it('pretends success for a filled trap field and stores nothing', async () => {
    const trapped = await postForm(
      proxied,
      { email: 'trap.bot@example.com', website: 'http://spam.example' },
      { 'X-Forwarded-For': '203.0.113.50' },
    )
    expect(trapped.status).toBe(303)
    expect(trapped.headers.get('location')).toBe('/?waitlist=submitted')
    expect(await insertStatus(proxied, 'trap.bot@example.com', { 'X-Forwarded-For': '203.0.113.51' })).toBe(
      201,
    )
    const person = await postForm(
      proxied,
      { email: 'trap.person@example.com', website: '' },
      { 'X-Forwarded-For': '203.0.113.52' },
    )
    expect(person.headers.get('location')).toBe('/?waitlist=submitted')
    expect(
      await insertStatus(proxied, 'trap.person@example.com', { 'X-Forwarded-For': '203.0.113.53' }),
    ).toBe(409)
  })
})

describe('security headers', () => {
  const paths = ['/', '/no/such/page', '/rest/v1/waitlist', '/healthz', '/logo.svg']

  // The page's one inline script (the after-paint loader), hashed here as a browser would check it.
  let loaderSource = ''
  beforeAll(async () => {
    const html = await (await fetch(`${plain.url}/`)).text()
    const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(
      ([, attributes = '']) => !/\bsrc=|application\/ld\+json/.test(attributes),
    )
    expect(inline).toHaveLength(1)
    expect(inline[0]?.[1]).toContain('data-entry="/assets/')
    const hash = createHash('sha256')
      .update(inline[0]?.[2] ?? '')
      .digest('base64')
    loaderSource = `'sha256-${hash}'`
  })

  it.each(paths)(
    'on %s: strict CSP, framing refused, nosniff, referrer, permissions, COOP, no cookie',
    async (path) => {
      for (const server of [plain, gated]) {
        const response = await fetch(`${server.url}${path}`, { headers: { apikey: server.anonKey } })
        await response.arrayBuffer()
        const csp = response.headers.get('content-security-policy') ?? ''
        const scriptSrc = csp.split(';').find((directive) => directive.trim().startsWith('script-src')) ?? ''
        // This origin, and the loader by its hash: no other inline script can run.
        expect(scriptSrc.trim()).toBe(`script-src 'self' ${loaderSource}`)
        expect(csp).not.toMatch(/unsafe-eval/)
        expect(csp).toContain("frame-ancestors 'none'")
        expect(csp).toContain("object-src 'none'")
        expect(response.headers.get('x-content-type-options')).toBe('nosniff')
        expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
        expect(response.headers.get('permissions-policy')).toMatch(/camera=\(\)/)
        expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin')
        expect(response.headers.get('set-cookie')).toBeNull()
      }
    },
  )

  it('also on answers made before any route runs (malformed request, oversized headers)', async () => {
    const backslash = await rawRequest(
      gated.url,
      'GET /rest/v1\\waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    )
    const oversized = await rawRequest(
      gated.url,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'x'.repeat(20 * 1024)}\r\nConnection: close\r\n\r\n`,
    )
    expect([backslash.status, oversized.status]).toEqual([400, 431])
    for (const answer of [backslash, oversized]) {
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'")
      expect(answer.headers['x-content-type-options']).toBe('nosniff')
    }
  })

  it('connect-src allows the page origin, and the hosted Supabase origin when the build uses one', async () => {
    const own = (await fetch(`${plain.url}/`)).headers.get('content-security-policy') ?? ''
    expect(own).toMatch(/connect-src 'self'(;|$)/)
    const hosted = (await fetch(`${gated.url}/`)).headers.get('content-security-policy') ?? ''
    expect(hosted).toMatch(/connect-src 'self' https:\/\/abcdefgh\.supabase\.co(;|$)/)
  })

  it('HSTS only over HTTPS from a trusted proxy, or when configured', async () => {
    expect((await fetch(`${plain.url}/`)).headers.get('strict-transport-security')).toBeNull()
    // Untrusted: anyone can send X-Forwarded-Proto.
    const spoofed = await fetch(`${plain.url}/`, { headers: { 'X-Forwarded-Proto': 'https' } })
    expect(spoofed.headers.get('strict-transport-security')).toBeNull()
    const viaProxy = await fetch(`${proxied.url}/`, { headers: { 'X-Forwarded-Proto': 'https' } })
    expect(viaProxy.headers.get('strict-transport-security')).toMatch(/max-age=\d+/)
    expect((await fetch(`${proxied.url}/`)).headers.get('strict-transport-security')).toBeNull()
    expect((await fetch(`${gated.url}/healthz`)).headers.get('strict-transport-security')).toMatch(
      /max-age=\d+/,
    )
  })
})

describe('logs', () => {
  it('writes one line per request, the path as sent: %0a, %0d and %1b forge nothing', async () => {
    const paths = [
      '/foo%0a2024-01-01%20INFO%20POST%20/admin%20200',
      '/bar%0d2024-01-01%20INFO%20POST%20/admin%20200',
      '/baz%1b%5b2J%1b%5b31mred',
    ]
    for (const path of paths) {
      const response = await fetch(`${plain.url}${path}`)
      await response.arrayBuffer()
      expect(response.status).toBe(404)
    }
    const output = plain.output()
    const lines = output.split('\n')
    for (const path of paths)
      expect(lines.filter((line) => line.startsWith(`GET ${path} 404 `))).toHaveLength(1)
    expect(lines.filter((line) => line.startsWith('2024-01-01'))).toEqual([])
    expect(output.includes('\r') || output.includes('\u001b')).toBe(false)
  })
})

describe('request JSON', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

  it('nested 7,000 deep is refused with 400, on REST and /mcp, and logs no stack', async () => {
    const rest = await insert(gated, `{"email":${nested(7000)}}`)
    expect(rest.status).toBe(400)
    expect((await expectPostgrestShape(rest, 'deep JSON')).code).toBe('PGRST102')
    const mcp = await fetch(`${gated.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":${nested(7000)}}}`,
    })
    expect(mcp.status).toBe(400)
    expect(await mcp.json()).toMatchObject({ error: { code: -32600 } })
    expect(gated.output()).not.toMatch(/RangeError|Maximum call stack|unexpected error/)
  })
})

describe('array inserts', () => {
  it('are judged whole: a bad row is 400 whether another row is listed or not, and nothing is written', async () => {
    expect(await insertStatus(gated, 'listed.person@example.com')).toBe(201)
    const before = await rowCount(gated)
    const bad = [{ email: 'bad' }, { email: null }, { email: `${'a'.repeat(250)}@x.co` }, { email: 5 }]
    const answers: string[] = []
    for (const other of [
      'listed.person@example.com',
      'LISTED.Person@example.com',
      'not.listed@example.com',
    ]) {
      for (const row of bad) {
        for (const rows of [
          [{ email: other }, row],
          [row, { email: other }],
        ]) {
          const response = await insert(gated, rows)
          expect(response.status, JSON.stringify(rows)).toBe(400)
          const body = await expectPostgrestShape(response, JSON.stringify(rows))
          expect(['23502', '23514'], JSON.stringify(body)).toContain(body.code)
          answers.push(`${JSON.stringify(row)} → ${JSON.stringify(body)}`)
        }
      }
    }
    // The same answer for the same bad row, whoever shares its array.
    expect(new Set(answers).size).toBe(bad.length)
    expect(await rowCount(gated)).toBe(before)
    // Among valid rows a duplicate is still the database's 409, and one row keeps the spec's answer.
    const pair = await insert(gated, [{ email: 'listed.person@example.com' }, { email: 'fresh@example.com' }])
    expect(pair.status).toBe(409)
    const single = await insert(gated, { email: 'listed.person@example.com' })
    expect(single.status).toBe(409)
    expect(await single.json()).toMatchObject({
      code: '23505',
      message: 'duplicate key value violates unique constraint "waitlist_email_key"',
    })
  })
})

describe('keyed answers', () => {
  it('are private: Cache-Control no-store and Vary on Authorization and apikey, on REST and /mcp', async () => {
    const service = { apikey: gated.serviceKey, Authorization: `Bearer ${gated.serviceKey}` }
    const answers = {
      'service_role read': await fetch(`${gated.url}/rest/v1/waitlist?select=email`, { headers: service }),
      '?apikey= read': await fetch(`${gated.url}/rest/v1/waitlist?select=email&apikey=${gated.serviceKey}`),
      'anon insert': await insert(gated, { email: 'private.answer@example.com' }),
      'anon read refused': await fetch(`${gated.url}/rest/v1/waitlist`, {
        headers: { apikey: gated.anonKey },
      }),
      'no key': await fetch(`${gated.url}/rest/v1/waitlist`),
      mcp: await fetch(`${gated.url}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }),
    }
    for (const [label, response] of Object.entries(answers)) {
      await response.arrayBuffer()
      expect(response.headers.get('cache-control') ?? '', label).toMatch(/(^|[ ,])no-store($|[ ,])/)
      const vary = (response.headers.get('vary') ?? '').toLowerCase().split(/\s*,\s*/)
      expect(vary, label).toEqual(expect.arrayContaining(['authorization', 'apikey']))
    }
    expect(answers['service_role read'].status).toBe(200)
    expect(answers['?apikey= read'].status).toBe(200)
  })
})

const STALLED_MCP_BODY =
  'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  'Accept: application/json, text/event-stream\r\nContent-Length: 65536\r\n\r\n{'
const STALLED_HEADERS = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '

/** A connection to the server's own database, as its owner. */
async function databaseOf(server: TestServer): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.env.DATABASE_URL })
  await client.connect()
  return client
}

describe('limits', () => {
  it('a full database queue answers 503 with Retry-After at once, /healthz says busy; held requests then complete', async () => {
    const before = await rowCount(gated)
    // Three inserts held inside the database, behind a lock on the table: each holds its slot.
    const locker = await databaseOf(gated)
    await locker.query('begin')
    await locker.query('lock table public.waitlist in access exclusive mode')
    const held = [1, 2, 3].map((i) => insertStatus(gated, `held.${i}@example.com`))
    try {
      // The probe names an unknown column: while a slot is free it is refused (400) without
      // reaching the database, so it never holds a place a held request needs.
      await expect
        .poll(async () => (await insert(gated, { probe: 'queue' })).status, { timeout: 10_000 })
        .toBe(503)
      const refused = await insert(gated, { email: 'refused@example.com' })
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('1')
      await expectPostgrestShape(refused, '503')
      // A load balancer asking now learns that this server refuses writes (ADR 025).
      const health = await fetch(`${gated.url}/healthz`)
      expect([health.status, health.headers.get('retry-after')]).toEqual([503, '1'])
      expect(await health.json()).toEqual({ status: 'busy' })
    } finally {
      await locker.query('rollback')
      await locker.end()
    }
    expect(await Promise.all(held)).toEqual([201, 201, 201])
    expect(await healthy(gated)).toBe(true)
    expect(await insertStatus(gated, 'after.queue@example.com')).toBe(201)
    expect(await rowCount(gated)).toBe(before + 4)
  })

  it('stalled bodies and header sends hold no database slot; after the 408 their sockets are destroyed', async () => {
    const pid = proxied.process.pid
    // More stalled /mcp bodies than the queue's 3 places, and as many stalled header sends.
    const bodies = await Promise.all(
      Array.from({ length: 10 }, () => stalledClient(proxied.url, STALLED_MCP_BODY)),
    )
    const heads = await Promise.all(
      Array.from({ length: 10 }, () => stalledClient(proxied.url, STALLED_HEADERS)),
    )
    const clients = [...bodies, ...heads]
    const ports = new Set(clients.map((client) => client.socket.localPort ?? 0))
    await expect.poll(() => heldConnections(pid, ports)).toBe(20)
    await new Promise((resolve) => setTimeout(resolve, 300)) // for the server to read what they sent
    const from = { 'X-Forwarded-For': '203.0.113.60' }
    expect(await insertStatus(proxied, 'during.stall@example.com', from)).toBe(201)
    // Each gets its 408 and the server's FIN; and the server lets go of the socket although the
    // client keeps its own side open: an ended socket would stay as long as the client likes.
    for (const answer of await Promise.all(clients.map((client) => client.answer)))
      expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    await expect.poll(() => heldConnections(pid, ports), { timeout: 5000 }).toBe(0)
    for (const client of clients) client.socket.destroy()
    expect(proxied.output()).not.toMatch(/unexpected error/)
  })

  it('cuts off a client that never finishes its headers (408, connection closed)', async () => {
    const answer = await rawRequest(plain.url, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 15_000)
    expect(answer.status).toBe(408)
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'PGRST408' })
  })

  it('cuts off a client that never finishes its body (408, connection closed)', async () => {
    const answer = await rawRequest(
      proxied.url,
      `POST /rest/v1/waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\napikey: ${proxied.anonKey}\r\nX-Forwarded-For: 203.0.113.99\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
      15_000,
    )
    expect(answer.status).toBe(408)
    expect(await healthy(proxied)).toBe(true)
  })

  it('no server printed an e-mail address', () => {
    for (const server of [plain, proxied, gated, bulk]) expectNoEmail(server.output())
  })
})
