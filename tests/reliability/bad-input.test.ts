import { request as httpRequest } from 'node:http'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import type { TestServer } from '../../harness/test-server'
import {
  asResponse,
  expectNoEmail,
  expectPostgrestShape,
  healthy,
  insert,
  insertStatus,
  rawRequest,
  storedEmails,
} from './support'

afterAll(stopBackends)

type Case = [name: string, send: (server: TestServer) => Promise<Response>]

function sign(secret: Uint8Array | string, claims: Record<string, unknown>, expiresAt: string | number) {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret
  return new SignJWT({ iss: 'supabase', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(expiresAt)
    .sign(key)
}

/** A request line and headers sent as they are, with Connection: close. */
function raw(server: TestServer, target: string, body = '', extra = ''): Promise<Response> {
  const request =
    `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\napikey: ${server.anonKey}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`
  return rawRequest(server.url, request).then(asResponse)
}

/** http.request keeps the path as written (no dot-segment removal), unlike fetch. */
function rawPath(
  server: TestServer,
  path: string,
  body: string = JSON.stringify({ email: 'path.trick@example.com' }),
): Promise<Response> {
  const { port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      // A socket of its own (agent: false): the server may close one that sent an oversized body.
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('end', () =>
          resolve(
            new Response(Buffer.concat(chunks), {
              status: res.statusCode ?? 0,
              headers: res.headers as Record<string, string>,
            }),
          ),
        )
      },
    )
    req.once('error', reject)
    req.on('error', () => {}) // EPIPE when the server answers 413 before the upload ends
    req.end(body)
  })
}

const post = (body: unknown, headers?: Record<string, string>) => (server: TestServer) =>
  insert(server, body, headers)
const email = (value: unknown) => post({ email: value })

const CASES: Case[] = [
  ['malformed JSON', post('{"email":')],
  ['empty body', post('')],
  ['JSON null', post('null')],
  ['JSON number', post('42')],
  ['JSON string', post('"bad@example.com"')],
  ['array of numbers', post('[1,2]')],
  ['array of arrays', post('[["bad@example.com"]]')],
  ['deeply nested arrays', post(`${'['.repeat(4000)}${']'.repeat(4000)}`)],
  ['empty object', post({})],
  ['email as number', email(123)],
  ['email as boolean', email(true)],
  ['email as null', email(null)],
  ['email as array', email(['bad@example.com'])],
  ['email as object', email({ address: 'bad@example.com' })],
  ['unknown column', post({ emial: 'bad@example.com' })],
  ['system column id', post({ email: 'id.bad@example.com', id: 5 })],
  ['system column created_at', post({ email: 'ts.bad@example.com', created_at: '2000-01-01T00:00:00Z' })],
  ['__proto__ key', post('{"__proto__":{"admin":true},"email":"proto.bad@example.com"}')],
  ['rows with different keys', post([{ email: 'k1.bad@example.com' }, { other: 1 }])],
  [
    'valid row with an invalid one (atomic)',
    post([{ email: 'atomic.bad@example.com' }, { email: 'not-an-address' }]),
  ],
  ['no @', email('not-an-address')],
  ['empty local part', email('@example.com')],
  ['empty domain', email('bad@')],
  ['space inside', email('bad user@example.com')],
  ['double dot domain', email('bad@example..com')],
  ['leading hyphen label', email('bad@-example.com')],
  ['surrounding spaces', email('  padded.bad@example.com  ')],
  ['255 characters', email(`${'a'.repeat(243)}@example.com`)],
  ['10,000 characters', email(`${'a'.repeat(10_000)}@example.com`)],
  ['NUL character', email('nul\u0000bad@example.com')],
  ['control character', email('bell\u0007bad@example.com')],
  ['newline', email('line\nbad@example.com')],
  ['SQL injection', email("x'); drop table public.waitlist; --@example.com")],
  ['SQL tautology', email("bad@example.com' or '1'='1")],
  ['HTML injection', email('<script>alert(1)</script>@example.com')],
  ['unicode local part', email('josé.bad@example.com')],
  ['IDN domain', email('bad@bücher.example')],
  ['emoji', email('😀@example.com')],
  [
    'invalid UTF-8 bytes',
    (server) =>
      insert(server, Buffer.from([0x7b, 0x22, 0x65, 0x22, 0x3a, 0xff, 0xfe, 0x7d]).toString('latin1')),
  ],
  ['text/plain', post({ email: 'ct1.bad@example.com' }, { 'Content-Type': 'text/plain' })],
  [
    'form-urlencoded',
    post('email=ct2.bad%40example.com', { 'Content-Type': 'application/x-www-form-urlencoded' }),
  ],
  ['multipart', post('--x\r\n\r\nct3\r\n--x--', { 'Content-Type': 'multipart/form-data; boundary=x' })],
  ['XML', post('<email>ct4.bad@example.com</email>', { 'Content-Type': 'application/xml' })],
  [
    '2 MB body',
    (server) =>
      rawPath(
        server,
        '/rest/v1/waitlist',
        JSON.stringify({ email: 'big.bad@example.com', pad: 'x'.repeat(2 * 1024 * 1024) }),
      ),
  ],
  ['other schema', post({ email: 'schema.bad@example.com' }, { 'Content-Profile': 'auth' })],
  ['missing key', post({ email: 'nokey.bad@example.com' }, { apikey: '', Authorization: '' })],
  [
    'malformed key',
    post({ email: 'key1.bad@example.com' }, { apikey: 'not-a-jwt', Authorization: 'Bearer not-a-jwt' }),
  ],
  [
    'expired key',
    async (server) => {
      const expired = await sign(server.secret, { role: 'anon' }, Math.floor(Date.now() / 1000) - 3600)
      return insert(
        server,
        { email: 'key2.bad@example.com' },
        { apikey: server.anonKey, Authorization: `Bearer ${expired}` },
      )
    },
  ],
  [
    'forged service_role key',
    async (server) => {
      const forged = await sign('f'.repeat(40), { role: 'service_role' }, '1h')
      return insert(
        server,
        { email: 'key3.bad@example.com' },
        { apikey: forged, Authorization: `Bearer ${forged}` },
      )
    },
  ],
  [
    'unsigned (alg none) key',
    async (server) => {
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
      const none = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ role: 'service_role' })}.`
      return insert(
        server,
        { email: 'key4.bad@example.com' },
        { apikey: none, Authorization: `Bearer ${none}` },
      )
    },
  ],
  [
    'PUT',
    (server) =>
      fetch(`${server.url}/rest/v1/waitlist`, { method: 'PUT', headers: { apikey: server.anonKey } }),
  ],
  [
    'PATCH without filter',
    (server) =>
      fetch(`${server.url}/rest/v1/waitlist`, {
        method: 'PATCH',
        headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'patch.bad@example.com' }),
      }),
  ],
  [
    'DELETE as anon',
    (server) =>
      fetch(`${server.url}/rest/v1/waitlist?id=gt.0`, {
        method: 'DELETE',
        headers: { apikey: server.anonKey },
      }),
  ],
  ['path /rest/v1/waitlist/../x', (server) => rawPath(server, '/rest/v1/waitlist/../x')],
  ['path /rest/v1/waitlist%00', (server) => rawPath(server, '/rest/v1/waitlist%00')],
  ['path /rest/v1/waitlist/%2e%2e/x', (server) => rawPath(server, '/rest/v1/waitlist/%2e%2e/x')],
  ['path with trailing slash', (server) => rawPath(server, '/rest/v1/waitlist/')],
  ['path with backslash', (server) => raw(server, '/rest/v1\\waitlist', '{"email":"bs.bad@example.com"}')],
  [
    'raw NUL byte in the path',
    (server) => raw(server, '/rest/v1/waitlist\u0000', '{"email":"nul2.bad@example.com"}'),
  ],
  [
    'URL of 6,000 characters',
    (server) =>
      fetch(`${server.url}/rest/v1/waitlist?select=${'a'.repeat(6000)}`, {
        headers: { apikey: server.anonKey },
      }),
  ],
  ['20 KiB header', post({ email: 'hdr.bad@example.com' }, { 'X-Padding': 'x'.repeat(20 * 1024) })],
  // Both framings at once: the classic request-smuggling shape, refused by Node's parser.
  [
    'Content-Length with Transfer-Encoding',
    (server) => raw(server, '/rest/v1/waitlist', '{}', 'Transfer-Encoding: chunked\r\n'),
  ],
  [
    'broken chunked framing',
    (server) =>
      rawRequest(
        server.url,
        `POST /rest/v1/waitlist HTTP/1.1\r\nHost: 127.0.0.1\r\napikey: ${server.anonKey}\r\nContent-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      ).then(asResponse),
  ],
]

const VALID = ['valid.one@example.com', 'Valid.Two@example.com', 'valid.three@example.org']

describe.each(BACKENDS)('bad input corpus on $name', ({ name }) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServerOn(name)
  })
  afterAll(async () => {
    await server?.cleanup()
  })

  it(`${CASES.length} hostile requests each get a 4xx PostgREST-shaped answer and change nothing`, async () => {
    for (const address of VALID) expect(await insertStatus(server, address)).toBe(201)
    const seen: string[] = []
    for (const [label, send] of CASES) {
      const response = await send(server).catch((error: unknown) => {
        throw new Error(`${label}: no answer (${String(error)})`, { cause: error })
      })
      seen.push(`${response.status} ${label}`)
      expect(response.status, label).toBeGreaterThanOrEqual(400)
      expect(response.status, label).toBeLessThan(500)
      await expectPostgrestShape(response, label)
    }
    // The duplicate in other letter case is the one expected refusal of a valid address.
    expect(await insertStatus(server, 'VALID.ONE@example.com')).toBe(409)
    console.log(`bad input on ${name}: ${CASES.length + 1} cases\n  ${seen.join('\n  ')}`)
    expect((await storedEmails(server)).sort()).toEqual(VALID.map((v) => v.toLowerCase()).sort())
    expect(await healthy(server)).toBe(true)
    expectNoEmail(server.output())
  })
})
