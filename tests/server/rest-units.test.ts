import { SignJWT } from 'jose'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadApiKeys } from '../../server/auth/api-keys'
import { cachedVerifier } from '../../server/auth/key-cache'
import { InvalidKeyError, verifyKey } from '../../server/auth/verify-key'
import { jwtRefusal, statusForSqlState } from '../../server/http/rest/postgrest-error'
import {
  appliedPreferences,
  parseColumnsParam,
  parsePrefer,
  parseRowsBody,
} from '../../server/http/rest/rest-request'

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters'
const secretBytes = new TextEncoder().encode(SECRET)

function token(claims: Record<string, unknown>, build: (jwt: SignJWT) => SignJWT = (jwt) => jwt) {
  return build(new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' })).sign(secretBytes)
}

/** How the REST room words a key's refusal, PostgREST's way (postgrest-error.ts). */
async function refusal(key: string, verify = (token: string) => verifyKey(secretBytes, token)) {
  const error = await verify(key).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(InvalidKeyError)
  const { code, message, details } = jwtRefusal(error as InvalidKeyError, key)
  return { code, message, details }
}

describe('keys', () => {
  it('signs Supabase-shaped keys that are a pure function of the secret', async () => {
    const first = await loadApiKeys({ jwtSecret: SECRET, dataDir: '/nonexistent', databaseUrl: undefined })
    const again = await loadApiKeys({ jwtSecret: SECRET, dataDir: '/nonexistent', databaseUrl: undefined })
    expect(again.anonKey).toBe(first.anonKey)
    const payload = JSON.parse(
      Buffer.from(first.serviceKey.split('.')[1] ?? '', 'base64url').toString(),
    ) as object
    expect(payload).toMatchObject({ iss: 'supabase', role: 'service_role' })
    expect(await verifyKey(first.secret, first.anonKey)).toMatchObject({ role: 'anon', iss: 'supabase' })
  })

  it('takes a token without a role claim as anon, as PostgREST does', async () => {
    expect((await verifyKey(secretBytes, await token({ sub: 'x' }))).role).toBe('anon')
  })

  it('refuses roles outside anon, authenticated and service_role', async () => {
    const refused = await refusal(await token({ role: 'postgres' }))
    expect(refused.code).toBe('PGRST303')
  })

  it('words each failure as PostgREST 13 does', async () => {
    const other = new TextEncoder().encode('another-secret-of-at-least-thirty-two-chars')
    const forged = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(other)
    expect(await refusal(forged)).toEqual({
      code: 'PGRST301',
      message: 'No suitable key or wrong key type',
      details: 'None of the keys was able to decode the JWT',
    })
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"role":"service_role"}').toString('base64url')}.`
    expect((await refusal(none)).code).toBe('PGRST301')
    expect((await refusal('one.two')).message).toBe('Expected 3 parts in JWT; got 2')
    const expired = await token({ role: 'anon' }, (jwt) =>
      jwt.setExpirationTime(Math.floor(Date.now() / 1000) - 120),
    )
    expect(await refusal(expired)).toMatchObject({
      code: 'PGRST303',
      message: 'JWT expired',
    })
    const early = await token({ role: 'anon' }, (jwt) =>
      jwt.setNotBefore(Math.floor(Date.now() / 1000) + 3600),
    )
    expect(await refusal(early)).toMatchObject({
      code: 'PGRST303',
      message: 'JWT not yet valid',
    })
  })

  it('allows PostgREST’s 30 seconds of clock skew', async () => {
    const justExpired = await token({ role: 'anon' }, (jwt) =>
      jwt.setExpirationTime(Math.floor(Date.now() / 1000) - 10),
    )
    expect((await verifyKey(secretBytes, justExpired)).role).toBe('anon')
  })
})

describe('Prefer', () => {
  it('reads return and an exact count, and echoes them as PostgREST does', () => {
    const insert = parsePrefer('return=representation, count=exact, missing=default')
    expect(insert).toEqual({ return: 'representation', count: 'exact' })
    expect(appliedPreferences(insert, true)).toBe('return=representation, count=exact')
    expect(appliedPreferences(parsePrefer('return=minimal'), true)).toBe('return=minimal')
    expect(appliedPreferences(parsePrefer(null), true)).toBeUndefined()
    expect(appliedPreferences(parsePrefer('return=representation, count=exact'), false)).toBe('count=exact')
    // Outside the contract (ADR 063): neither honoured nor echoed.
    expect(parsePrefer('return=everything, count=planned, resolution=ignore-duplicates')).toEqual({})
  })
})

describe('request bodies', () => {
  it('reads ?columns= as supabase-js writes it', () => {
    expect(parseColumnsParam('"email","note"')).toEqual(['email', 'note'])
    expect(parseColumnsParam('email')).toEqual(['email'])
    expect(parseColumnsParam(null)).toBeUndefined()
    expect(() => parseColumnsParam('"a"b"')).toThrow(/failed to parse columns parameter/)
  })

  it('takes one object or an array of objects with the same keys', () => {
    expect(parseRowsBody('application/json; charset=utf-8', '{"email":"a@b.co"}')).toEqual({
      rows: [{ email: 'a@b.co' }],
      keys: ['email'],
    })
    expect(() => parseRowsBody(null, '[{"email":"a"},{"x":1}]')).toThrow('All object keys must match')
    expect(parseRowsBody(null, '[{"email":"a"},{}]', ['email']).rows).toHaveLength(2)
    expect(() => parseRowsBody(null, '[1]')).toThrow('Empty or invalid json')
    expect(() => parseRowsBody('text/csv', 'email\na@b.co')).toThrow('Content-Type not acceptable: text/csv')
  })
})

describe('SQLSTATE to HTTP status', () => {
  it('follows PostgREST’s table', () => {
    const cases: [string, 'anon' | 'service_role', number][] = [
      ['23505', 'anon', 409],
      ['23503', 'anon', 409],
      ['23514', 'anon', 400],
      ['23502', 'anon', 400],
      ['22P02', 'anon', 400],
      ['42501', 'anon', 401],
      ['42501', 'service_role', 403],
      ['42P01', 'anon', 404],
      ['25006', 'anon', 405],
      ['08006', 'anon', 503],
      ['57P01', 'anon', 503],
      ['XX000', 'anon', 500],
      ['53400', 'anon', 500],
      ['53100', 'anon', 503],
      ['54001', 'anon', 500],
      ['42P17', 'anon', 500],
      ['P0001', 'anon', 400],
      ['P0002', 'anon', 500],
      ['28000', 'anon', 403],
      ['21000', 'anon', 400],
      ['0A000', 'anon', 400],
      ['PT418', 'anon', 418],
      ['PT200', 'anon', 400],
    ]
    for (const [code, role, status] of cases) expect(statusForSqlState(code, role), code).toBe(status)
  })
})

describe('the key cache', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('serves a verified key again, and lets a cached key expire', async () => {
    const verify = cachedVerifier(secretBytes)
    const now = Date.now()
    const key = await token({ role: 'anon' }, (jwt) => jwt.setExpirationTime(Math.floor(now / 1000) + 60))
    expect((await verify(key)).role).toBe('anon')
    expect((await verify(key)).role).toBe('anon')
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(now + 120_000) // past exp + 30 s
    expect((await refusal(key, verify)).message).toBe('JWT expired')
  })

  it('never caches a refusal', async () => {
    const verify = cachedVerifier(secretBytes)
    expect((await refusal('not.a.token', verify)).code).toBe('PGRST301')
    expect((await refusal('not.a.token', verify)).code).toBe('PGRST301')
  })

  it('keeps the page’s key while a thousand other keys pass, and a thousand keys at most', async () => {
    // A copy of the secret, zeroed at the end: then only a key the cache still holds passes.
    const secret = secretBytes.slice()
    const verify = cachedVerifier(secret)
    const page = await token({ role: 'anon' })
    const others = await Promise.all(Array.from({ length: 1000 }, (_, n) => token({ role: 'anon', n })))
    await verify(page)
    for (const other of others.slice(0, 999)) await verify(other)
    await verify(page) // the page's next request, before the thousandth other key
    await verify(others[999] as string)
    secret.fill(0)
    expect((await verify(page)).role).toBe('anon')
    expect((await refusal(others[0] as string, verify)).code).toBe('PGRST301')
    expect((await verify(others[1] as string)).role).toBe('anon')
  })
})
