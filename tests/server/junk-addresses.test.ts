import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { requestAccessTool } from '../../contract/agent-tool'
import { outcomeOfInsert } from '../../contract/waitlist-outcome'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { insert, storedEmails } from '../reliability/support'
import { type LocalDns, startLocalDns } from '../support/local-dns'

/**
 * Junk addresses kept out at every public way in, over real HTTP: the REST insert (as the page's
 * supabase-js sends it), the no-script form and the MCP tool, with the lists on by default, a lab's
 * BLOCKED_DOMAINS, and CHECK_MAIL_DOMAINS asking a local DNS server. Nothing refused is stored;
 * the forwarding relays and the owner's service_role key go through.
 */
let dns: LocalDns
let server: TestServer

beforeAll(async () => {
  dns = await startLocalDns({
    'null-mx.test': { nullMx: true },
    'gone.test': { rcode: 'NXDOMAIN' },
    'broken.test': { rcode: 'SERVFAIL' },
    'slow.test': { silent: true },
  })
  server = await startTestServer({
    env: {
      BLOCKED_DOMAINS: 'blocked.example',
      CHECK_MAIL_DOMAINS: 'true',
      DNS_SERVERS: dns.server,
      RATE_LIMIT_PER_MINUTE: '0',
    },
  })
})

afterAll(async () => {
  await server?.cleanup()
  await dns?.close()
})

const RELAY_ADDRESSES = [
  'x1y2z3@relay.firefox.com',
  'abc123@mozmail.com',
  'quiet.fox@duck.com',
  'me.alias@simplelogin.com',
  'me.alias@simplelogin.co',
  'me.alias@aleeas.com',
  'me.alias@slmail.me',
  'me@addy.io',
  'me@user.anonaddy.com',
  'me@anonaddy.me',
  'a1b2c3@privaterelay.appleid.com',
  'someone@icloud.com',
]

describe('junk addresses at the public ways in', () => {
  it('the REST insert refuses them with a PostgREST 400, message and hint, and the page shows its Error toast', async () => {
    const anon = createClient(server.url, server.anonKey, {
      realtime: { transport: WebSocket as never },
      auth: { persistSession: false, autoRefreshToken: false },
    })
    const cases = {
      'jane@mailinator.com': 'Addresses at disposable e-mail services are not accepted',
      'jane@inbox.guerrillamail.com': 'Addresses at disposable e-mail services are not accepted',
      // Missed by the first list: mailchecker names the one, the list corrections the other.
      'jane@mailinator.co': 'Addresses at disposable e-mail services are not accepted',
      'jane@tempmail.com': 'Addresses at disposable e-mail services are not accepted',
      'jane@blocked.example': 'Addresses at this domain are not accepted',
      'jane@null-mx.test': 'This address cannot receive mail',
      'jane@gone.test': 'This address cannot receive mail',
    }
    for (const [email, message] of Object.entries(cases)) {
      const { error, status } = await anon.from('waitlist').insert({ email })
      expect([email, status, error?.code, error?.message]).toEqual([email, 400, 'P0001', message])
      expect(error?.hint, email).toBeTruthy()
      expect(outcomeOfInsert(error).status, email).toBe('error')
    }
    // An array insert is judged whole: one junk row, and nothing of it is stored.
    const mixed = await insert(server, [{ email: 'fine.person@example.com' }, { email: 'x@yopmail.com' }])
    expect(mixed.status).toBe(400)
    const stored = await storedEmails(server)
    for (const email of [...Object.keys(cases), 'fine.person@example.com'])
      expect(stored).not.toContain(email)
  })

  it('accepts the forwarding relays, and accepts when DNS fails or does not answer in time', async () => {
    for (const email of [...RELAY_ADDRESSES, 'jane@broken.test', 'jane@slow.test', 'jane@example.com']) {
      const response = await insert(server, { email })
      expect([email, response.status]).toEqual([email, 201])
    }
  })

  it("takes the owner's word: a service_role insert is not checked", async () => {
    const response = await insert(
      server,
      { email: 'owner.added@mailinator.com' },
      { apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}` },
    )
    expect(response.status).toBe(201)
  })

  it('the no-script form sends a refused address to its error, storing nothing', async () => {
    const post = (email: string) =>
      fetch(`${server.url}/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }).toString(),
      })
    const refused = await post('form.junk@mailinator.com')
    expect([refused.status, refused.headers.get('location')]).toEqual([303, '/?waitlist=error'])
    const relay = await post('form.relay@duck.com')
    expect([relay.status, relay.headers.get('location')]).toEqual([303, '/?waitlist=submitted'])
    const stored = await storedEmails(server)
    expect(stored).not.toContain('form.junk@mailinator.com')
    expect(stored).toContain('form.relay@duck.com')
    expect(server.output()).toContain('no-script form: refused an address at mailinator.com (disposable)')
  })

  it('the MCP tool gives the same message and hint, as a tool error, storing nothing', async () => {
    const client = new Client({ name: 'junk-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
    try {
      const result = await client.callTool({
        name: requestAccessTool.name,
        arguments: { email: 'agent.junk@mailinator.com' },
      })
      expect(result.isError).toBe(true)
      const text = JSON.stringify(result.content)
      expect(text).toContain('Addresses at disposable e-mail services are not accepted')
      expect(text).toContain(
        'forwarding addresses (Firefox Relay, DuckDuckGo, SimpleLogin, addy.io, Hide My Email)',
      )
      const relay = await client.callTool({
        name: requestAccessTool.name,
        arguments: { email: 'agent.relay@mozmail.com' },
      })
      expect(relay.isError).toBeFalsy()
    } finally {
      await client.close()
    }
    const stored = await storedEmails(server)
    expect(stored).not.toContain('agent.junk@mailinator.com')
    expect(stored).toContain('agent.relay@mozmail.com')
    expect(server.output()).not.toMatch(/agent\.junk@|form\.junk@|jane@/)
  })
})

describe('BLOCK_DISPOSABLE=false, with the lists alone (no DNS)', () => {
  let open: TestServer
  beforeAll(async () => {
    open = await startTestServer({
      env: { BLOCK_DISPOSABLE: 'false', BLOCKED_DOMAINS: 'blocked.example', RATE_LIMIT_PER_MINUTE: '0' },
    })
  })
  afterAll(async () => {
    await open?.cleanup()
  })

  it('takes throwaway addresses again, and still refuses the lab own block list', async () => {
    expect((await insert(open, { email: 'lab.test@mailinator.com' })).status).toBe(201)
    const blocked = await insert(open, { email: 'someone@sub.blocked.example' })
    expect(blocked.status).toBe(400)
    expect(await blocked.json()).toEqual({
      code: 'P0001',
      message: 'Addresses at this domain are not accepted',
      details: "sub.blocked.example is on this waitlist's block list.",
      hint: 'Use another address.',
    })
    expect(await storedEmails(open)).toEqual(['lab.test@mailinator.com'])
  })
})
