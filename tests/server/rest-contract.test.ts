import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { BACKENDS, startServerOn, startServerOnOwnPostgres, stopBackends } from '../../harness/backends'
import type { TestServer } from '../../harness/test-server'

// One server per backend for the whole file: start-ups cost seconds. Tests share its table, so
// each uses its own addresses and compares counts rather than absolute numbers.
afterAll(stopBackends)

const EMAIL_KEY_MESSAGE = 'duplicate key value violates unique constraint "waitlist_email_key"'
const ORIGIN = 'https://lab.example.com'

function client(server: TestServer, key: string): SupabaseClient {
  return createClient(server.url, key, {
    realtime: { transport: WebSocket as never },
    auth: { persistSession: false, autoRefreshToken: false },
  })
}

function request(
  server: TestServer,
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
) {
  return fetch(`${server.url}/rest/v1/${path}`, init)
}

/** A REST POST with only the anon key: no Prefer, no Content-Profile, as a bare client sends it. */
function postRaw(server: TestServer, body: string, headers: Record<string, string> = {}, path = 'waitlist') {
  return request(server, path, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': 'application/json', ...headers },
    body,
  })
}

async function expectPostgrestError(
  response: Response,
  status: number,
  code: string,
  message?: string | RegExp,
): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
  const text = await response.text()
  // PostgREST's aeson output: exactly these four keys, in this order.
  expect(Object.keys(JSON.parse(text) as object)).toEqual(['code', 'details', 'hint', 'message'])
  const body = JSON.parse(text) as Record<string, unknown>
  expect(body.code).toBe(code)
  if (typeof message === 'string') expect(body.message).toBe(message)
  else if (message) expect(body.message).toMatch(message)
  expect(text).not.toMatch(/\bat .+:\d+:\d+/) // never a stack trace
  return body
}

function sign(
  secret: string | Uint8Array,
  claims: Record<string, unknown>,
  expiresAt: string | number = '10y',
) {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret
  return new SignJWT({ iss: 'supabase', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(key)
}

// An unsigned token claiming service_role, the oldest JWT forgery there is.
function unsigned(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`
}

describe.each(BACKENDS)('the /rest/v1 contract on $name', ({ name }) => {
  let server: TestServer
  let anon: SupabaseClient
  let service: SupabaseClient
  const tag = `${name}-${Date.now().toString(36)}`
  const address = (local: string) => `${local}.${tag}@example.com`
  const serviceHeaders = () => ({ apikey: server.serviceKey, Authorization: `Bearer ${server.serviceKey}` })

  async function count(): Promise<number> {
    const { count: rows, error } = await service.from('waitlist').select('*', { count: 'exact', head: true })
    expect(error).toBeNull()
    return rows ?? -1
  }

  beforeAll(async () => {
    // A page on a CDN origin calling this server (ADR 028): its origin listed in CORS_ORIGINS.
    server = await startServerOn(name, { env: { CORS_ORIGINS: ORIGIN } })
    anon = client(server, server.anonKey)
    service = client(server, server.serviceKey)
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  describe('POST', () => {
    it('return=minimal: 201 with an empty body, as supabase-js expects', async () => {
      const result = await anon.from('waitlist').insert({ email: address('first') })
      expect(result).toMatchObject({ error: null, data: null, status: 201 })

      const raw = await postRaw(server, JSON.stringify({ email: address('raw') }), {
        Prefer: 'return=minimal',
      })
      expect(raw.status).toBe(201)
      expect(await raw.text()).toBe('')
      expect(raw.headers.get('content-range')).toBe('*/*')
      expect(raw.headers.get('preference-applied')).toBe('return=minimal')
      expect(raw.headers.get('content-type')).toBeNull()

      const counted = await postRaw(server, JSON.stringify({ email: address('counted') }), {
        Prefer: 'count=exact',
      })
      expect(counted.status).toBe(201)
      expect(counted.headers.get('content-range')).toBe('*/1')
    })

    it('refuses the same address in another letter case: 409 23505 with Postgres wording', async () => {
      await anon.from('waitlist').insert({ email: address('Case') })
      const again = await anon.from('waitlist').insert({ email: address('case').toUpperCase() })
      expect(again.status).toBe(409)
      expect(again.error).toMatchObject({ code: '23505', message: EMAIL_KEY_MESSAGE, hint: null })
      // Postgres leaves out the "Key (email)=(…)" detail for a role that may not read the table.
      expect(again.error?.details).toBeNull()
      const raw = await postRaw(server, JSON.stringify({ email: address('case') }))
      await expectPostgrestError(raw, 409, '23505', EMAIL_KEY_MESSAGE)
    })

    it('return=representation: 401 42501 for anon and nothing inserted; the row for service_role', async () => {
      const before = await count()
      const denied = await anon
        .from('waitlist')
        .insert({ email: address('peek') })
        .select()
      expect(denied.status).toBe(401)
      expect(denied.error?.code).toBe('42501')
      expect(denied.data).toBeNull()

      const raw = await postRaw(server, JSON.stringify({ email: address('peek') }), {
        Prefer: 'return=representation',
      })
      expect(raw.headers.get('www-authenticate')).toBe('Bearer')
      await expectPostgrestError(raw, 401, '42501', 'permission denied for table waitlist')
      expect(await count()).toBe(before)

      const allowed = await service
        .from('waitlist')
        .insert({ email: address('owner') })
        .select('email, created_at')
      expect(allowed.status).toBe(201)
      expect(allowed.data).toEqual([
        { email: address('owner'), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+\+00:00$/) },
      ])

      const rawOwner = await postRaw(server, JSON.stringify({ email: address('owner2') }), {
        ...serviceHeaders(),
        Prefer: 'return=representation',
        'Content-Profile': 'public',
      })
      expect(rawOwner.status).toBe(201)
      expect(rawOwner.headers.get('preference-applied')).toBe('return=representation')
      expect(rawOwner.headers.get('content-profile')).toBe('public')
      expect(rawOwner.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const [row] = (await rawOwner.json()) as { id: unknown; email: string }[]
      expect(typeof row?.id).toBe('number')
      expect(row?.email).toBe(address('owner2'))

      // `.single()` asks for one object, which this API does not serve (ADR 063): 406, nothing written.
      const single = await service
        .from('waitlist')
        .insert({ email: address('single') })
        .select('email')
        .single()
      expect(single).toMatchObject({ status: 406, error: { code: 'PGRST107' } })
    })

    it('bulk insert: an array of objects in one transaction, with ?columns= as supabase-js sends', async () => {
      const before = await count()
      const result = await anon
        .from('waitlist')
        .insert([{ email: address('bulk1') }, { email: address('bulk2') }])
      expect(result.status).toBe(201)
      expect(await count()).toBe(before + 2)

      // supabase-js lists the union of keys; a row lacking one gets null, and one bad row undoes all.
      const partial = await anon
        .from('waitlist')
        .insert([{ email: address('bulk3') }, {} as { email: string }])
      expect(partial.status).toBe(400)
      expect(partial.error?.code).toBe('23502')
      expect(await count()).toBe(before + 2)

      const mismatched = await postRaw(server, JSON.stringify([{ email: address('b4') }, { other: 1 }]))
      await expectPostgrestError(mismatched, 400, 'PGRST102', 'All object keys must match')
      const empty = await postRaw(server, '[]')
      expect(empty.status).toBe(201)
      expect(await count()).toBe(before + 2)
    })

    it('upsert: no ?on_conflict= (400), and a resolution alone is a plain insert', async () => {
      const before = await count()
      for (const ignoreDuplicates of [true, false]) {
        const upsert = await service
          .from('waitlist')
          .upsert({ email: address('upserted') }, { onConflict: 'email', ignoreDuplicates })
        expect(upsert).toMatchObject({ status: 400, error: { code: 'PGRST100' } })
      }
      const headers = { ...serviceHeaders(), Prefer: 'resolution=merge-duplicates' }
      const merged = await postRaw(server, JSON.stringify({ email: address('first') }), headers)
      expect(merged.status).toBe(409)
      expect(merged.headers.get('preference-applied')).toBeNull()
      expect(await count()).toBe(before)
    })

    it('lets the database refuse invalid rows: 400 with 23514, 23502, 22007, 428C9', async () => {
      const refused = [
        'not-an-address',
        ` ${address('padded')}`,
        `${'a'.repeat(250)}@x.co`,
        'a"b@example.com',
        'a b@example.com',
      ]
      for (const email of refused) {
        const body = await expectPostgrestError(
          await postRaw(server, JSON.stringify({ email })),
          400,
          '23514',
        )
        expect(body.message).toMatch(
          /^new row for relation "waitlist" violates check constraint "waitlist_email_\w+"$/,
        )
      }
      // In an array, the same refusal word for word, decided before the insert (server/waitlist/signup.ts).
      for (const email of [...refused, null, 5]) {
        const alone = await (await postRaw(server, JSON.stringify({ email }))).json()
        const inArray = await postRaw(server, JSON.stringify([{ email: address('fine') }, { email }]))
        expect(inArray.status, String(email)).toBe(400)
        expect(await inArray.json(), String(email)).toEqual(alone)
      }
      const viaClient = await anon.from('waitlist').insert({ email: 'nope' })
      expect(viaClient).toMatchObject({ status: 400, error: { code: '23514' } })
      await expectPostgrestError(await postRaw(server, '{}'), 400, '23502', /null value in column "email"/)
      await expectPostgrestError(await postRaw(server, '{"email":null}'), 400, '23502')
      const badDate = await postRaw(
        server,
        JSON.stringify({ email: address('dated'), created_at: 'soon' }),
        serviceHeaders(),
      )
      await expectPostgrestError(
        badDate,
        400,
        '22007',
        'invalid input syntax for type timestamp with time zone: "soon"',
      )
      const ownId = await postRaw(server, JSON.stringify({ id: 7, email: address('id') }), serviceHeaders())
      await expectPostgrestError(ownId, 400, '428C9', /cannot insert a non-DEFAULT value into column "id"/)
      const anonDate = await postRaw(
        server,
        JSON.stringify({ email: address('dated'), created_at: '2020-01-01' }),
      )
      await expectPostgrestError(anonDate, 401, '42501', 'permission denied for table waitlist')
    })

    it('answers malformed requests with PostgREST errors', async () => {
      await expectPostgrestError(await postRaw(server, '{"email":'), 400, 'PGRST102', 'Empty or invalid json')
      await expectPostgrestError(await postRaw(server, ''), 400, 'PGRST102', 'Empty or invalid json')
      await expectPostgrestError(
        await postRaw(server, '"just a string"'),
        400,
        'PGRST102',
        'Empty or invalid json',
      )
      await expectPostgrestError(
        await postRaw(server, 'email=x@y.co', { 'Content-Type': 'text/plain' }),
        400,
        'PGRST102',
        'Content-Type not acceptable: text/plain',
      )
      await expectPostgrestError(
        await postRaw(server, 'email=x', { 'Content-Type': 'application/x-www-form-urlencoded' }),
        400,
        'PGRST102',
        'Content-Type not acceptable: application/x-www-form-urlencoded',
      )
      await expectPostgrestError(
        await postRaw(server, JSON.stringify({ email: address('x'), nickname: 'x' })),
        400,
        'PGRST204',
        "Could not find the 'nickname' column of 'waitlist' in the schema cache",
      )
      const viaClient = await anon.from('waitlist').insert({ email: address('y'), nickname: 'y' } as never)
      expect(viaClient).toMatchObject({ status: 400, error: { code: 'PGRST204' } })

      const typo = await expectPostgrestError(await postRaw(server, '{}', {}, 'waitlists'), 404, 'PGRST205')
      expect(typo).toMatchObject({
        message: "Could not find the table 'public.waitlists' in the schema cache",
        hint: null,
      })
      // The one function served is redeem_invite (tests/server/redeem-invite.test.ts): others, PostgREST's 404.
      await expectPostgrestError(
        await postRaw(server, '{}', {}, 'rpc/delete_everything'),
        404,
        'PGRST202',
        'Could not find the function public.delete_everything without parameters in the schema cache',
      )

      await expectPostgrestError(
        await postRaw(server, JSON.stringify({ email: address('schema') }), { 'Content-Profile': 'private' }),
        406,
        'PGRST106',
        'The schema must be one of the following: public',
      )
      await expectPostgrestError(
        await postRaw(server, JSON.stringify({ email: address('csv') }), { Accept: 'text/csv' }),
        406,
        'PGRST107',
        'None of these media types are available: text/csv',
      )
      const put = await request(server, 'waitlist?id=eq.1', {
        method: 'PUT',
        headers: { ...serviceHeaders(), 'Content-Type': 'application/json' },
        body: '{}',
      })
      await expectPostgrestError(put, 405, 'PGRST117', 'Unsupported HTTP method: PUT')
    })

    it('refuses bodies over 16 KiB with 413 and a JSON message, inserting nothing', async () => {
      const before = await count()
      const huge = JSON.stringify({ email: `${'a'.repeat(17 * 1024)}@example.com` })
      const response = await postRaw(server, huge, { Origin: ORIGIN })
      expect(response.status).toBe(413)
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      expect(await response.json()).toEqual({
        code: 'PGRST413',
        details: 'The request body may be at most 16384 bytes.',
        hint: 'Send a smaller body.',
        message: 'Request size limit exceeded',
      })
      const justUnder = JSON.stringify({ email: `${'a'.repeat(16 * 1024 - 40)}@example.com` })
      expect((await postRaw(server, justUnder)).status).toBe(400) // read, then refused by the 254-char check
      expect(await count()).toBe(before)
    })
  })

  describe('keys', () => {
    it('answers a missing or unknown apikey as the gateway does: 401 { message, hint }', async () => {
      const missing = await request(server, 'waitlist', {
        method: 'POST',
        body: '{}',
        headers: { Origin: ORIGIN },
      })
      expect(missing.status).toBe(401)
      expect(missing.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      // Supabase's gateway's message and hint, in PostgREST's shape.
      expect(await missing.json()).toEqual({
        code: 'PGRST302',
        details: null,
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      })
      const invalidBody = {
        code: 'PGRST301',
        details: null,
        message: 'Invalid API key',
        hint: 'Double check your Supabase `anon` or `service_role` API key.',
      }
      for (const apikey of ['not-a-key', 'a.b.c', unsigned({ role: 'service_role', iss: 'supabase' })]) {
        const invalid = await postRaw(server, '{}', { apikey })
        expect(invalid.status).toBe(401)
        expect(await invalid.json()).toEqual(invalidBody)
      }
      const viaClient = await client(server, 'not-a-key')
        .from('waitlist')
        .insert({ email: address('nokey') })
      expect(viaClient).toMatchObject({ status: 401, error: { message: 'Invalid API key' } })
      const inQuery = await request(server, `waitlist?apikey=${server.anonKey}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: address('query-key') }),
      })
      expect(inQuery.status).toBe(201)
    })

    it('refuses a forged service_role key, as apikey or as bearer, and reveals nothing', async () => {
      const forged = await sign('a-different-secret-that-is-long-enough-1234', { role: 'service_role' })
      const asKey = await postRaw(server, '{}', { apikey: forged })
      expect(asKey.status).toBe(401)
      expect(((await asKey.json()) as { message: string }).message).toBe('Invalid API key')

      const asBearer = await postRaw(server, '{}', { Authorization: `Bearer ${forged}` })
      expect(asBearer.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token", error_description="No suitable key or wrong key type"',
      )
      const body = await expectPostgrestError(asBearer, 401, 'PGRST301', 'No suitable key or wrong key type')
      expect(body.details).toBe('None of the keys was able to decode the JWT')

      const forgedRead = await client(server, forged).from('waitlist').select('email')
      expect(forgedRead.status).toBe(401)
      expect(forgedRead.data).toBeNull()
      const bearerRead = await request(server, 'waitlist?select=email', {
        headers: { apikey: server.anonKey, Authorization: `Bearer ${unsigned({ role: 'service_role' })}` },
      })
      expect(bearerRead.status).toBe(401)
      expect(await bearerRead.text()).not.toContain('@example.com')
    })

    it('refuses expired, malformed and empty bearer tokens with PostgREST 13 wording', async () => {
      const { secret } = server
      const expired = await sign(secret, { role: 'anon' }, Math.floor(Date.now() / 1000) - 3600)
      await expectPostgrestError(
        await postRaw(server, '{}', { Authorization: `Bearer ${expired}` }),
        401,
        'PGRST303',
        'JWT expired',
      )
      await expectPostgrestError(
        await postRaw(server, '{}', { Authorization: 'Bearer garbage' }),
        401,
        'PGRST301',
        'Expected 3 parts in JWT; got 1',
      )
      await expectPostgrestError(
        await postRaw(server, '{}', { Authorization: 'Bearer ' }),
        401,
        'PGRST301',
        'Empty JWT is sent in Authorization header',
      )
      // A user token of the project (role authenticated) is honoured: insert yes, read no (403, not 401).
      const user = await sign(secret, { role: 'authenticated', sub: 'user-1' })
      const asUser = await postRaw(server, JSON.stringify({ email: address('user') }), {
        Authorization: `Bearer ${user}`,
      })
      expect(asUser.status).toBe(201)
      const userRead = await request(server, 'waitlist', {
        headers: { apikey: server.anonKey, Authorization: `Bearer ${user}` },
      })
      await expectPostgrestError(userRead, 403, '42501', 'permission denied for table waitlist')
      expect(userRead.headers.get('www-authenticate')).toBeNull()
    })
  })

  describe('GET', () => {
    it('lets service_role read with select, order, limit, offset and an exact count', async () => {
      const { data, error, status } = await service
        .from('waitlist')
        .select('email, created_at')
        .order('created_at')
      expect(error).toBeNull()
      expect(status).toBe(200)
      expect(data?.length).toBeGreaterThan(3)
      expect(Object.keys(data?.[0] ?? {})).toEqual(['email', 'created_at'])
      const times = (data ?? []).map((row) => Date.parse(row.created_at as string))
      expect(times).toEqual([...times].sort((a, b) => a - b))

      const newest = await service.from('waitlist').select('id').order('id', { ascending: false }).range(1, 2)
      expect(newest.data).toHaveLength(2)
      const ids = (newest.data ?? []).map((row) => row.id as number)
      expect(ids[0]).toBeGreaterThan(ids[1] ?? Number.POSITIVE_INFINITY)

      const total = await count()
      const page = await request(server, 'waitlist?select=email&limit=1&offset=1', {
        headers: { ...serviceHeaders(), Prefer: 'count=exact' },
      })
      expect(page.status).toBe(200) // never PostgREST's 206 (ADR 063)
      expect(page.headers.get('content-range')).toBe(`1-1/${total}`)
      expect(page.headers.get('preference-applied')).toBe('count=exact')
      expect(await page.json()).toHaveLength(1)

      const all = await request(server, 'waitlist?select=id', {
        headers: { ...serviceHeaders(), Prefer: 'count=exact' },
      })
      expect(all.status).toBe(200)
      expect(all.headers.get('content-range')).toBe(`0-${total - 1}/${total}`)
      const uncounted = await request(server, 'waitlist?select=id&limit=2', { headers: serviceHeaders() })
      expect(uncounted.status).toBe(200)
      expect(uncounted.headers.get('content-range')).toBe('0-1/*')

      const past = await request(server, `waitlist?offset=${total + 5}`, {
        headers: { ...serviceHeaders(), Prefer: 'count=exact' },
      })
      expect(past.status).toBe(200) // never PostgREST's 416
      expect(past.headers.get('content-range')).toBe(`*/${total}`)
      expect(await past.json()).toEqual([])
    })

    it('answers bad columns, bad orders and bad profiles as PostgREST', async () => {
      const badColumn = await request(server, 'waitlist?select=password', { headers: serviceHeaders() })
      await expectPostgrestError(badColumn, 400, '42703', 'column waitlist.password does not exist')
      const badOrder = await request(server, 'waitlist?order=created_at.foo', { headers: serviceHeaders() })
      const order = await expectPostgrestError(
        badOrder,
        400,
        'PGRST100',
        '"failed to parse order (created_at.foo)"',
      )
      expect(order.details).toBe('expecting "asc", "desc", "nullsfirst" or "nullslast"')
      const badProfile = await request(server, 'waitlist', {
        headers: { ...serviceHeaders(), 'Accept-Profile': 'auth' },
      })
      await expectPostgrestError(badProfile, 406, 'PGRST106')
    })

    it('never lets anon read or count, whatever it asks for', async () => {
      const read = await anon.from('waitlist').select('*')
      expect(read).toMatchObject({ status: 401, data: null, error: { code: '42501' } })
      const single = await anon.from('waitlist').select('email').limit(1).maybeSingle()
      expect(single).toMatchObject({ status: 401, data: null })

      const raw = await request(server, 'waitlist?select=email', { headers: { apikey: server.anonKey } })
      expect(raw.headers.get('www-authenticate')).toBe('Bearer')
      await expectPostgrestError(raw, 401, '42501', 'permission denied for table waitlist')

      const head = await anon.from('waitlist').select('*', { count: 'exact', head: true })
      expect(head).toMatchObject({ status: 401, count: null })
      const rawHead = await request(server, 'waitlist?select=*', {
        method: 'HEAD',
        headers: { apikey: server.anonKey, Prefer: 'count=exact' },
      })
      expect(rawHead.status).toBe(401)
      expect(rawHead.headers.get('content-range')).toBeNull()
    })
  })

  describe('outside the contract (ADR 063)', () => {
    it('answers every other method with 405, for every key, and changes nothing', async () => {
      const before = await count()
      for (const key of [server.anonKey, server.serviceKey]) {
        const headers = { apikey: key, Authorization: `Bearer ${key}` }
        for (const method of ['PATCH', 'DELETE', 'PUT']) {
          const refused = await request(server, 'waitlist?email=eq.x', {
            method,
            headers: { ...headers, 'Content-Type': 'application/json' },
            body: method === 'DELETE' ? undefined : '{"email":"x@example.com"}',
          })
          await expectPostgrestError(refused, 405, 'PGRST117', `Unsupported HTTP method: ${method}`)
        }
      }
      const update = await service
        .from('waitlist')
        .update({ email: address('hijack') })
        .gt('id', 0)
      expect(update).toMatchObject({ status: 405, error: { code: 'PGRST117' } })
      const remove = await anon.from('waitlist').delete().gt('id', 0)
      expect(remove).toMatchObject({ status: 405, error: { code: 'PGRST117' } })
      // The key is still checked first, as the gateway does.
      await expectPostgrestError(await request(server, 'waitlist', { method: 'DELETE' }), 401, 'PGRST302')
      expect(await count()).toBe(before)
    })

    it('answers every other query parameter with 400, filters and .single() included', async () => {
      const before = await count()
      const filtered = await service.from('waitlist').select('email').eq('email', address('first'))
      expect(filtered).toMatchObject({ status: 400, data: null })
      expect(filtered.error).toMatchObject({
        code: 'PGRST100',
        message: 'Unsupported query parameter: email',
      })
      for (const query of ['id=gt.0', 'email=in.(a,b)', 'or=(id.eq.1)', 'columns=email', 'select=id&on=1']) {
        const read = await request(server, `waitlist?${query}`, { headers: serviceHeaders() })
        await expectPostgrestError(read, 400, 'PGRST100', /^Unsupported query parameter: /)
      }
      for (const query of ['on_conflict=email', 'order=id', 'limit=1', 'email=eq.x']) {
        const insert = await postRaw(
          server,
          JSON.stringify({ email: address('param') }),
          {},
          `waitlist?${query}`,
        )
        await expectPostgrestError(insert, 400, 'PGRST100', /^Unsupported query parameter: /)
      }
      const one = await service.from('waitlist').select('email').limit(1).single()
      expect(one).toMatchObject({ status: 406, error: { code: 'PGRST107' } })
      expect(await count()).toBe(before)
    })
  })

  describe('CORS, health and logs', () => {
    it('answers preflights with 200 before any key check, and every answer to a listed origin with it', async () => {
      const preflight = await request(server, 'waitlist', {
        method: 'OPTIONS',
        headers: {
          Origin: ORIGIN,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers':
            'apikey, authorization, content-type, content-profile, x-client-info',
        },
      })
      expect(preflight.status).toBe(200)
      expect(await preflight.text()).toBe('')
      expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      expect(preflight.headers.get('access-control-allow-methods')).toBe(
        'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT',
      )
      expect(preflight.headers.get('access-control-allow-headers')).toBe(
        'apikey, authorization, content-type, content-profile, x-client-info',
      )
      const created = await postRaw(server, JSON.stringify({ email: address('cors') }), { Origin: ORIGIN })
      expect(created.status).toBe(201)
      expect(created.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      expect(created.headers.get('access-control-expose-headers')).toContain('Content-Range')
      const refused = await postRaw(server, JSON.stringify({ email: address('cors') }), { Origin: ORIGIN })
      expect(refused.status).toBe(409)
      expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      // Answers made before the table is reached carry it too: a refused key, an oversized body.
      const keyless = await fetch(`${server.url}/rest/v1/waitlist`, { headers: { Origin: ORIGIN } })
      expect(keyless.status).toBe(401)
      expect(keyless.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      const oversized = await postRaw(server, JSON.stringify({ email: 'x'.repeat(20_000) }), {
        Origin: ORIGIN,
      })
      expect(oversized.status).toBe(413)
      expect(oversized.headers.get('access-control-allow-origin')).toBe(ORIGIN)
      expect(oversized.headers.get('access-control-expose-headers')).toContain('Content-Range')
    })

    it('reports health and never writes an address into its log', async () => {
      const health = await fetch(`${server.url}/healthz`)
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: 'ok' })
      const log = server.output()
      expect(log).toMatch(/POST \/rest\/v1\/waitlist 201/)
      expect(log).toMatch(/POST \/rest\/v1\/waitlist 409/)
      expect(log).not.toMatch(/@example\.com/i)
      expect(log).not.toContain(tag)
    })
  })

  // It stops the database under a running server: a cluster of its own, as other files share this one.
  // The embedded cluster dying under its server is tests/reliability/crash.test.ts's.
  if (name === 'postgres')
    it('answers 503 when Postgres goes away, without a stack trace', async () => {
      const { server: orphan, stopPostgres } = await startServerOnOwnPostgres()
      try {
        // Served first, so the pool holds connections when the database goes.
        expect((await postRaw(orphan, JSON.stringify({ email: address('before') }))).status).toBe(201)
        await stopPostgres()
        const health = await fetch(`${orphan.url}/healthz`)
        expect(health.status).toBe(503)
        expect(await health.json()).toEqual({ status: 'unavailable' })
        const insert = await postRaw(orphan, JSON.stringify({ email: address('down') }))
        await expectPostgrestError(
          insert,
          503,
          'PGRST000',
          'Database connection error. Retrying the connection.',
        )
        expect(orphan.output()).not.toMatch(/@example\.com/i)
      } finally {
        await orphan.cleanup()
      }
    })
})
