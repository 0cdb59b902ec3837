import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { expectBurstThenRefused, expectRowsCharged, insert, insertStatus, rowCount } from './support'

afterAll(stopBackends)

const SECRET = 'shared-rate-limit-secret-'.padEnd(48, 'x')

// Two servers on one DATABASE_URL behind one proxy: the buckets live in the database, so an
// address has one limit wherever its requests land (10 a minute, a burst of 5).
describe('one rate limit across the servers of one database (postgres backend: the embedded one has one server)', () => {
  let a: TestServer
  let b: TestServer
  beforeAll(async () => {
    const env = {
      DATABASE_URL: await sharedPostgresUrl(),
      JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '10',
      RATE_LIMIT_BURST: '5',
      TRUST_PROXY_HEADER: 'X-Forwarded-For',
    }
    ;[a, b] = await Promise.all([startTestServer({ env }), startTestServer({ env })])
  })
  afterAll(async () => {
    await Promise.all([a?.cleanup(), b?.cleanup()])
  })

  const from = (address: string) => ({ 'X-Forwarded-For': address })

  it('the burst is shared: alternating servers, the 6th write is refused with Retry-After, and writes nothing', async () => {
    await expectBurstThenRefused((i) =>
      insert(i % 2 ? a : b, { email: `shared.burst.${i}@example.com` }, from('203.0.113.40')),
    )
    expect(await rowCount(a)).toBe(5)
  })

  it('a duplicate and a bad body cost a token as the memory limiter charges them; the form and /mcp share the bucket', async () => {
    const client = from('203.0.113.41')
    expect(await insertStatus(a, 'shared.dup@example.com', client)).toBe(201)
    expect(await insertStatus(b, 'Shared.Dup@example.com', client)).toBe(409)
    const bad = await insert(a, '{"email":', client)
    expect(bad.status).toBe(400)
    await bad.arrayBuffer()
    const form = await fetch(`${b.url}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...client },
      body: new URLSearchParams({ email: 'shared.form@example.com' }).toString(),
    })
    expect(form.headers.get('location')).toBe('/?waitlist=submitted')
    const mcp = (id: number) =>
      fetch(`${a.url}/mcp`, {
        method: 'POST',
        headers: {
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          ...client,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'request_beta_access', arguments: { email: `shared.mcp.${id}@example.com` } },
        }),
      })
    expect((await mcp(1)).status).toBe(200)
    // Five spent (insert, duplicate, bad body, form, tool call): every way in is now refused.
    expect((await mcp(2)).status).toBe(429)
    expect(await insertStatus(b, 'shared.after@example.com', client)).toBe(429)
    const formAfter = await fetch(`${a.url}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...client },
      body: new URLSearchParams({ email: 'shared.form.after@example.com' }).toString(),
    })
    expect(formAfter.headers.get('location')).toBe('/?waitlist=error')
    // A refused request with a bad body is still a refusal, as the memory limiter answers it first.
    expect((await insert(a, '{"email":', client)).status).toBe(429)
  })

  it('array inserts: one token per row, charged before the insert, the request’s token kept when the rows are refused', async () => {
    const before = await rowCount(a)
    await expectRowsCharged(a, b, 'shared', from('203.0.113.42'))
    expect(await rowCount(a)).toBe(before + 4)
  })
})
