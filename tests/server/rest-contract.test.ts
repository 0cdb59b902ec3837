import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { BACKENDS, startServerOn, stopBackends } from '../support/backends'
import type { TestServer } from '../support/test-server'

afterAll(stopBackends)

const EMAIL_KEY_MESSAGE = 'duplicate key value violates unique constraint "waitlist_email_key"'

function client(server: TestServer, key: string): SupabaseClient {
  return createClient(server.url, key, {
    realtime: { transport: WebSocket as never },
    auth: { persistSession: false, autoRefreshToken: false },
  })
}

function post(server: TestServer, body: string, headers: Record<string, string> = {}, path = 'waitlist') {
  return fetch(`${server.url}/rest/v1/${path}`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': 'application/json', ...headers },
    body,
  })
}

async function expectPostgrestError(response: Response, status: number, code: string, message?: string | RegExp) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await response.json()) as Record<string, unknown>
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'hint', 'message'])
  expect(body.code).toBe(code)
  if (typeof message === 'string') expect(body.message).toBe(message)
  else if (message) expect(body.message).toMatch(message)
  return body
}

function sign(secret: string | Uint8Array, claims: Record<string, unknown>, expiresAt = '10y') {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret
  return new SignJWT({ iss: 'supabase', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(key)
}

describe.each(BACKENDS)('the /rest/v1 contract on $name', ({ name, skip }) => {
  let server: TestServer
  let anon: SupabaseClient
  let service: SupabaseClient
  const tag = `${name}-${Date.now().toString(36)}`
  const address = (local: string) => `${local}.${tag}@example.com`

  async function count(): Promise<number> {
    const { count: rows, error } = await service.from('waitlist').select('*', { count: 'exact', head: true })
    expect(error).toBeNull()
    return rows ?? -1
  }

  beforeAll(async () => {
    if (skip) return
    server = await startServerOn(name)
    anon = client(server, server.anonKey)
    service = client(server, server.serviceKey)
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  it.skipIf(skip)('inserts with return=minimal: 201, empty body, as supabase-js expects', async () => {
    const result = await anon.from('waitlist').insert({ email: address('first') })
    expect(result).toMatchObject({ error: null, data: null, status: 201 })
    const raw = await post(server, JSON.stringify({ email: address('raw') }), { Prefer: 'return=minimal' })
    expect(raw.status).toBe(201)
    expect(await raw.text()).toBe('')
    expect(raw.headers.get('content-range')).toBe('*/*')
  })

  it.skipIf(skip)('refuses the same address in another letter case with 409 23505', async () => {
    await anon.from('waitlist').insert({ email: address('Case') })
    const again = await anon.from('waitlist').insert({ email: address('case').toUpperCase() })
    expect(again.status).toBe(409)
    expect(again.error).toMatchObject({ code: '23505', message: EMAIL_KEY_MESSAGE })
  })

  it.skipIf(skip)('return=representation: 401 42501 for anon and nothing inserted; the row for service_role', async () => {
    const before = await count()
    const denied = await anon.from('waitlist').insert({ email: address('peek') }).select()
    expect(denied.status).toBe(401)
    expect(denied.error?.code).toBe('42501')
    expect(await count()).toBe(before)

    const raw = await post(server, JSON.stringify({ email: address('peek') }), { Prefer: 'return=representation' })
    expect(raw.headers.get('www-authenticate')).toBe('Bearer')
    await expectPostgrestError(raw, 401, '42501', 'permission denied for table waitlist')

    const allowed = await service.from('waitlist').insert({ email: address('owner') }).select('email, created_at')
    expect(allowed.status).toBe(201)
    expect(allowed.data).toEqual([{ email: address('owner'), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }])
  })

  it.skipIf(skip)('supports PostgREST bulk insert of an array of objects', async () => {
    const rows = [{ email: address('bulk1') }, { email: address('bulk2') }]
    const result = await anon.from('waitlist').insert(rows)
    expect(result.status).toBe(201)
    const mismatched = await post(server, JSON.stringify([{ email: address('b3') }, { other: 1 }]))
    await expectPostgrestError(mismatched, 400, 'PGRST102', 'Empty or invalid json')
  })

  it.skipIf(skip)('lets the database refuse invalid addresses: 400 with 23514 / 23502', async () => {
    for (const email of ['not-an-address', ` ${address('padded')}`, `${'a'.repeat(250)}@x.co`, 'a"b@example.com', 'a b@example.com']) {
      await expectPostgrestError(await post(server, JSON.stringify({ email })), 400, '23514')
    }
    await expectPostgrestError(await post(server, '{}'), 400, '23502')
    await expectPostgrestError(await post(server, '{"email":null}'), 400, '23502')
  })

  it.skipIf(skip)('answers malformed requests with PostgREST errors', async () => {
    await expectPostgrestError(await post(server, '{"email":'), 400, 'PGRST102', 'Empty or invalid json')
    await expectPostgrestError(await post(server, ''), 400, 'PGRST102', 'Empty or invalid json')
    await expectPostgrestError(
      await post(server, 'email=x@y.co', { 'Content-Type': 'text/plain' }),
      400,
      'PGRST102',
      'Content-Type not acceptable: text/plain',
    )
    await expectPostgrestError(
      await post(server, JSON.stringify({ email: address('x'), nickname: 'x' })),
      400,
      'PGRST204',
      "Could not find the 'nickname' column of 'waitlist' in the schema cache",
    )
    await expectPostgrestError(await post(server, '{}', {}, 'waitlists'), 404, 'PGRST205', /public\.waitlists/)
    await expectPostgrestError(
      await post(server, JSON.stringify({ email: address('schema') }), { 'Content-Profile': 'private' }),
      406,
      'PGRST106',
    )
    const huge = JSON.stringify({ email: `${'a'.repeat(17 * 1024)}@example.com` })
    expect((await post(server, huge)).status).toBe(413)
  })

  it.skipIf(skip)('refuses missing, invalid, forged and expired keys with 401', async () => {
    const missing = await fetch(`${server.url}/rest/v1/waitlist`, { method: 'POST', body: '{}' })
    await expectPostgrestError(missing, 401, 'PGRST301', 'No API key found in request')
    await expectPostgrestError(await post(server, '{}', { apikey: 'not-a-key' }), 401, 'PGRST301', 'Invalid API key')

    const forged = await sign('a-different-secret-that-is-long-enough-1234', { role: 'service_role' })
    await expectPostgrestError(await post(server, '{}', { apikey: forged }), 401, 'PGRST301', 'Invalid API key')
    const forgedBearer = await post(server, '{}', { Authorization: `Bearer ${forged}` })
    await expectPostgrestError(forgedBearer, 401, 'PGRST301')
    const forgedRead = await fetch(`${server.url}/rest/v1/waitlist?select=email`, {
      headers: { apikey: server.anonKey, Authorization: `Bearer ${forged}` },
    })
    expect(forgedRead.status).toBe(401)
    expect(await forgedRead.text()).not.toContain('@example.com')

    const { secret } = await import('../../server/keys').then((keys) => keys.loadApiKeys({ dataDir: server.dataDir }))
    const expired = await sign(secret, { role: 'anon' }, Math.floor(Date.now() / 1000) - 3600)
    await expectPostgrestError(await post(server, '{}', { Authorization: `Bearer ${expired}` }), 401, 'PGRST303', 'JWT expired')
  })

  it.skipIf(skip)('lets service_role read with select, order, limit, offset and an exact count', async () => {
    const { data, error } = await service.from('waitlist').select('email, created_at').order('created_at')
    expect(error).toBeNull()
    expect(data?.length).toBeGreaterThan(3)
    const times = (data ?? []).map((row) => Date.parse(row.created_at as string))
    expect(times).toEqual([...times].sort((a, b) => a - b))

    const page = await service.from('waitlist').select('email').order('id', { ascending: false }).range(1, 2)
    expect(page.data).toHaveLength(2)
    const total = await count()
    const raw = await fetch(`${server.url}/rest/v1/waitlist?select=email&limit=1`, {
      headers: { apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}`, Prefer: 'count=exact' },
    })
    expect(raw.status).toBe(206)
    expect(raw.headers.get('content-range')).toBe(`0-0/${total}`)

    const badColumn = await fetch(`${server.url}/rest/v1/waitlist?select=password`, {
      headers: { apikey: server.serviceKey },
    })
    await expectPostgrestError(badColumn, 400, '42703', 'column waitlist.password does not exist')
    const badId = await fetch(`${server.url}/rest/v1/waitlist?id=eq.abc`, { headers: { apikey: server.serviceKey } })
    await expectPostgrestError(badId, 400, '22P02')
  })

  it.skipIf(skip)('never lets anon read, count, update or delete', async () => {
    const before = await count()
    const read = await anon.from('waitlist').select('*')
    expect(read.status).toBe(401)
    expect(read.error?.code).toBe('42501')
    expect(read.data).toBeNull()

    const head = await fetch(`${server.url}/rest/v1/waitlist?select=*`, {
      method: 'HEAD',
      headers: { apikey: server.anonKey, Prefer: 'count=exact' },
    })
    expect(head.status).toBe(401)
    expect(head.headers.get('content-range')).toBeNull()

    const update = await anon.from('waitlist').update({ email: 'hijack@example.com' }).eq('email', address('first'))
    expect(update.status).toBe(401)
    const remove = await anon.from('waitlist').delete().eq('email', address('first'))
    expect(remove.status).toBe(401)
    const unfiltered = await fetch(`${server.url}/rest/v1/waitlist`, { method: 'DELETE', headers: { apikey: server.anonKey } })
    await expectPostgrestError(unfiltered, 400, '21000', 'DELETE requires a WHERE clause')
    expect(await count()).toBe(before)
  })

  it.skipIf(skip)('answers CORS preflights with 200 and normal responses with an allowed origin', async () => {
    const preflight = await fetch(`${server.url}/rest/v1/waitlist`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://lab.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'apikey, authorization, content-type, content-profile, x-client-info',
      },
    })
    expect(preflight.status).toBe(200)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST')
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'apikey, authorization, content-type, content-profile, x-client-info',
    )
    const normal = await post(server, JSON.stringify({ email: address('cors') }), { Origin: 'https://lab.example.com' })
    expect(normal.headers.get('access-control-allow-origin')).toBe('*')
    expect(normal.headers.get('access-control-expose-headers')).toContain('Content-Range')
  })

  it.skipIf(skip)('reports health and never writes an address into its log', async () => {
    const health = await fetch(`${server.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'ok' })
    expect(server.output()).toContain('POST /rest/v1/waitlist 201')
    expect(server.output()).not.toMatch(/@example\.com/i)
  })
})
