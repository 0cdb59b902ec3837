import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { loadApiKeys } from '../../server/auth/api-keys'
import { ConfigError, loadServerEnv } from '../../server/boot/env'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { storedEmails } from '../reliability/support'

/**
 * The review's attack: any web page could sign its visitors' browsers up for strangers, since the
 * insert answered `Access-Control-Allow-Origin: *`. Here pages at a foreign origin try it every
 * way a browser lets them (a preflighted fetch, a fetch with no Content-Type and the key in the
 * URL, which needs no preflight, a form post, a sandboxed frame's `Origin: null`), and the site's
 * own origins (SITE_URL, one in CORS_ORIGINS, the server's own address) still work.
 */
const SITE = 'https://lab.example.com'
const CDN = 'https://cdn.example.net'
const EVIL = 'https://evil.example'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    env: { SITE_URL: SITE, CORS_ORIGINS: `${CDN}, https://second.example.org/`, RATE_LIMIT_PER_MINUTE: '0' },
  })
})

afterAll(async () => {
  await server?.cleanup()
})

/** The page's insert (harness/waitlist-api.ts), sent as a page at `origin` would send it. */
function insertFrom(origin: string | undefined, email: string) {
  return postWaitlist(server, { email }, origin ? { Origin: origin } : {})
}

function preflightFrom(origin: string) {
  return fetch(`${server.url}/rest/v1/waitlist`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'apikey, authorization, content-type',
    },
  })
}

const allowOrigin = (response: Response) => response.headers.get('access-control-allow-origin')

describe('CORS on the REST API: the site own origins only', () => {
  it('grants a preflight to SITE_URL and CORS_ORIGINS and to no other page', async () => {
    for (const origin of [SITE, CDN, 'https://second.example.org']) {
      const answer = await preflightFrom(origin)
      expect([origin, answer.status, allowOrigin(answer)]).toEqual([origin, 200, origin])
      expect(answer.headers.get('access-control-allow-headers')).toBe('apikey, authorization, content-type')
      expect(answer.headers.get('vary')).toMatch(/Origin/)
    }
    for (const origin of [EVIL, 'null', `${SITE}.evil.example`, 'http://lab.example.com']) {
      const answer = await preflightFrom(origin)
      expect([origin, answer.status, allowOrigin(answer)]).toEqual([origin, 200, null])
      expect(answer.headers.get('access-control-allow-methods')).toBeNull()
      expect(answer.headers.get('vary')).toMatch(/Origin/)
    }
  })

  it('refuses every write a foreign page can send, preflighted or not, and stores nothing', async () => {
    const attempts: [string, Promise<Response>][] = [
      ['a preflighted fetch', insertFrom(EVIL, 'victim.one@example.com')],
      // No Content-Type and the key in the URL: a "simple" request, sent without a preflight.
      [
        'a fetch that needs no preflight',
        fetch(`${server.url}/rest/v1/waitlist?apikey=${server.anonKey}`, {
          method: 'POST',
          headers: { Origin: EVIL },
          body: new Blob([JSON.stringify({ email: 'victim.two@example.com' })]),
        }),
      ],
      ['a sandboxed frame (Origin: null)', insertFrom('null', 'victim.three@example.com')],
      ['a look-alike host', insertFrom(`${SITE}.evil.example`, 'victim.four@example.com')],
    ]
    for (const [label, sent] of attempts) {
      const answer = await sent
      expect([label, answer.status, allowOrigin(answer)]).toEqual([label, 403, null])
      expect(await answer.json()).toMatchObject({
        code: 'PGRST403',
        message: 'Writes from this origin are not allowed',
        hint: "If that page is the site's own, add its origin to CORS_ORIGINS on the server.",
      })
    }
    expect((await storedEmails(server)).filter((email) => email.startsWith('victim.'))).toEqual([])
  })

  it('lets the site own pages and programs write; only a listed origin gets CORS headers', async () => {
    const fromSite = await insertFrom(SITE, 'site.page@example.com')
    expect([fromSite.status, allowOrigin(fromSite)]).toEqual([201, SITE])
    expect(fromSite.headers.get('access-control-expose-headers')).toContain('Content-Range')
    expect(fromSite.headers.get('vary')).toBe('Origin, Authorization, apikey')
    const fromCdn = await insertFrom(CDN, 'cdn.page@example.com')
    expect([fromCdn.status, allowOrigin(fromCdn)]).toEqual([201, CDN])
    // The page this server serves, at its own address: same-origin, so it needs no CORS header.
    const own = new URL(server.url).origin
    const fromOwnAddress = await insertFrom(own, 'own.page@example.com')
    expect([fromOwnAddress.status, allowOrigin(fromOwnAddress)]).toEqual([201, null])
    const fromProgram = await insertFrom(undefined, 'program@example.com')
    expect([fromProgram.status, allowOrigin(fromProgram)]).toEqual([201, null])
    // An error to a listed origin is readable too (the page shows its toast), one to another is not.
    const duplicate = await insertFrom(CDN, 'cdn.page@example.com')
    expect([duplicate.status, allowOrigin(duplicate)]).toEqual([409, CDN])
    const keyless = await fetch(`${server.url}/rest/v1/waitlist`, { headers: { Origin: EVIL } })
    expect([keyless.status, allowOrigin(keyless)]).toEqual([401, null])
  })

  it('no answer anywhere says Access-Control-Allow-Origin: *, but the agent files that must stay open', async () => {
    const headers = { Origin: EVIL }
    const paths = ['/', '/healthz', '/no-such-page', '/rest/v1/waitlist', '/rest/v1/nothing']
    for (const path of paths) {
      const answer = await fetch(`${server.url}${path}`, { headers })
      expect([path, allowOrigin(answer)]).toEqual([path, null])
    }
    for (const path of ['/llms.txt', '/llms-full.txt', '/.well-known/ai-catalog.json']) {
      const answer = await fetch(`${server.url}${path}`, { headers })
      expect([path, answer.status, allowOrigin(answer)]).toEqual([path, 200, '*'])
    }
    // /mcp keeps its own rule: the site's own pages only, not CORS_ORIGINS.
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        Origin: CDN,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    expect([mcp.status, allowOrigin(mcp)]).toEqual([403, null])
  })

  it('the no-script form refuses another site posting it, and still takes its own page', async () => {
    const post = (origin: string, email: string) =>
      fetch(`${server.url}/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }).toString(),
      })
    const foreign = await post(EVIL, 'form.victim@example.com')
    expect([foreign.status, foreign.headers.get('location')]).toEqual([303, '/?waitlist=error'])
    const own = await post(SITE, 'form.person@example.com')
    expect([own.status, own.headers.get('location')]).toEqual([303, '/?waitlist=submitted'])
    const stored = await storedEmails(server)
    expect(stored).toContain('form.person@example.com')
    expect(stored).not.toContain('form.victim@example.com')
  })
})

/** A POST with the Host header a browser sends for `host` (fetch() writes its own Host). */
function postAs(
  target: TestServer,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; location?: string; body: string }> {
  const { port } = new URL(target.url)
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers }, (answer) => {
      let text = ''
      answer.on('data', (chunk) => (text += chunk))
      answer.on('end', () =>
        resolve({ status: answer.statusCode ?? 0, location: answer.headers.location, body: text }),
      )
    })
    sent.on('error', reject)
    sent.end(body)
  })
}

const restHeaders = (target: TestServer, origin: string, host: string) => ({
  Host: host,
  Origin: origin,
  apikey: target.anonKey,
  Authorization: `Bearer ${target.anonKey}`,
  'Content-Type': 'application/json',
})
const formHeaders = (origin: string, host: string) => ({
  Host: host,
  Origin: origin,
  'Content-Type': 'application/x-www-form-urlencoded',
})
/** The REST insert of `email` as a page at `origin` sends it to `host`. */
const insertAs = (target: TestServer, origin: string, host: string, email: string) =>
  postAs(target, '/rest/v1/waitlist', restHeaders(target, origin, host), JSON.stringify({ email }))

describe('with SITE_URL unset: the addresses it listens on are the site, never what Host says', () => {
  let local: TestServer
  beforeAll(async () => {
    local = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'info' } })
  })
  afterAll(async () => {
    await local?.cleanup()
  })

  it('refuses a DNS-rebinding page whose Origin names the Host it sent, as /mcp does', async () => {
    const { port } = new URL(local.url)
    const rebound = `rebind.attacker.test:${port}`
    const origin = `http://${rebound}`
    const insert = await insertAs(local, origin, rebound, 'rebound.rest@example.com')
    expect(insert.status).toBe(403)
    expect(JSON.parse(insert.body)).toMatchObject({ code: 'PGRST403' })
    const form = await postAs(local, '/', formHeaders(origin, rebound), 'email=rebound.form%40example.com')
    expect([form.status, form.location]).toEqual([303, '/?waitlist=error'])
    expect((await storedEmails(local)).filter((email) => email.startsWith('rebound.'))).toEqual([])
  })

  it("leaves a mail link's POST to its token: a one-click POST comes from wherever the mail client runs", async () => {
    const email = 'one.click@example.com'
    expect((await postWaitlist(local, { email })).status).toBe(201)
    const keys = linkKeys((await loadApiKeys({ dataDir: local.dataDir, databaseUrl: undefined })).secret)
    const path = `/unsubscribe?t=${sealAddress(keys.unsubscribe, email)}`
    const webmail = 'https://webmail.example.net'
    const posted = await postAs(
      local,
      path,
      formHeaders(webmail, new URL(local.url).host),
      'List-Unsubscribe=One-Click',
    )
    expect([posted.status, posted.body.includes(mailWords.pages.unsubscribe.done)]).toEqual([200, true])
  })

  it('takes the pages at 127.0.0.1, localhost and [::1] on its port, and says so at start', async () => {
    const { port } = new URL(local.url)
    const own = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]
    for (const [i, origin] of own.entries()) {
      const host = new URL(origin).host
      const email = `own.${i}@example.com`
      const insert = await insertAs(local, origin, host, email)
      expect([origin, insert.status]).toEqual([origin, 201])
      const form = await postAs(local, '/', formHeaders(origin, host), `email=own.form.${i}%40example.com`)
      expect([origin, form.location]).toEqual([origin, '/?waitlist=submitted'])
    }
    expect(local.output()).toContain(
      `SITE_URL is not set: only pages at ${own.join(', ')} may sign up, and links name the first. ` +
        "On the internet, set SITE_URL to the site's public address.",
    )
  })
})

describe('refused writes from other pages cost the visitor nothing', () => {
  it("N refusals to a foreign page, then the visitor's own writes still go through", async () => {
    const limited = await startTestServer({
      env: { SITE_URL: SITE, RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '2' },
    })
    try {
      const { host } = new URL(limited.url)
      for (let i = 0; i < 6; i++) {
        const rest = await insertAs(limited, EVIL, host, `spent.${i}@example.com`)
        expect(rest.status).toBe(403)
        const form = await postAs(
          limited,
          '/',
          formHeaders(EVIL, host),
          `email=spent.form.${i}%40example.com`,
        )
        expect(form.location).toBe('/?waitlist=error')
      }
      const own = await insertAs(limited, SITE, host, 'visitor.own@example.com')
      expect(own.status).toBe(201)
      const form = await postAs(limited, '/', formHeaders(SITE, host), 'email=visitor.form%40example.com')
      expect(form.location).toBe('/?waitlist=submitted')
      expect((await storedEmails(limited)).sort()).toEqual([
        'visitor.form@example.com',
        'visitor.own@example.com',
      ])
    } finally {
      await limited.cleanup()
    }
  })
})

describe('CORS_ORIGINS at start-up', () => {
  it('takes a comma-separated list of origins and names each one that is not an origin', () => {
    expect(
      loadServerEnv({ CORS_ORIGINS: ' https://a.example, http://b.example:8080/ ' }).CORS_ORIGINS,
    ).toEqual(['https://a.example', 'http://b.example:8080'])
    expect(loadServerEnv({}).CORS_ORIGINS).toEqual([])
    const bad = () => loadServerEnv({ CORS_ORIGINS: '*, https://a.example/path, ftp://c.example' })
    expect(bad).toThrow(ConfigError)
    expect(bad).toThrow(/"\*" is not an address/)
    expect(bad).toThrow(/"https:\/\/a\.example\/path" is not an origin/)
    expect(bad).toThrow(/"ftp:\/\/c\.example" is not http/)
  })
})
