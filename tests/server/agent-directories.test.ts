import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { directoryResponseHeaders } from 'web-bot-auth'
import { signerFromJWK } from 'web-bot-auth/crypto'
import { RFC9421_ED25519_PUBLIC, RFC9421_ED25519_TEST_KEY, testKeyId } from '../../harness/signing-agent'
import { storedAgentProblem } from '../../server/agents/agent-record'
import { DIRECTORY_LIMITS, KeyDirectories, keySource, lifetimeOf } from '../../server/agents/key-directory'
import { signatureAgentEntry } from '../../server/agents/message-signature'
import { DEFAULT_SIGNATURE_AGENTS, parseTrustList } from '../../server/agents/trust-list'
import { ConfigError, loadServerEnv } from '../../server/boot/env'

/**
 * Issue 67, item 2: which agents are trusted (SIGNATURE_AGENTS) and how their directories are read:
 * both forms of Signature-Agent, the directory's time and size limits, its Cache-Control lifetime
 * (bounded), its own signature where it carries one. A loopback server plays each directory.
 */
type Answer = { status?: number; body: string; headers?: Record<string, string>; delayMs?: number }
const answers = new Map<string, Answer>()
const asked = new Map<string, number>()
let origin: string
const server = createServer((request, response) => {
  const path = request.url ?? ''
  asked.set(path, (asked.get(path) ?? 0) + 1)
  const answer = answers.get(path) ?? { status: 404, body: '' }
  setTimeout(
    () => response.writeHead(answer.status ?? 200, answer.headers).end(answer.body),
    answer.delayMs ?? 0,
  )
})

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const KEYS = JSON.stringify({ keys: [RFC9421_ED25519_PUBLIC] })
const limits = { ...DIRECTORY_LIMITS, timeoutMs: 300, maxBytes: 4096 }

describe('SIGNATURE_AGENTS', () => {
  it('defaults to the known public signers; `default` and `-ORIGIN` add and take away', () => {
    expect([...parseTrustList(DEFAULT_SIGNATURE_AGENTS).values()]).toEqual([
      { origin: 'https://chatgpt.com', name: 'ChatGPT agent' },
      { origin: 'https://agent.bot.goog', name: 'Google-Agent' },
    ])
    const list = parseTrustList('default,-https://chatgpt.com, https://agent.example/=Example agent')
    expect([...list.keys()]).toEqual(['https://agent.bot.goog', 'https://agent.example'])
    const unset = loadServerEnv({}).SIGNATURE_AGENTS
    expect(unset.get('https://chatgpt.com')?.name).toBe('ChatGPT agent')
    expect(unset.get('https://agent.bot.goog')?.name).toBe('Google-Agent')
    const replaced = loadServerEnv({ SIGNATURE_AGENTS: 'https://agent.example=Only this one' })
    expect([...replaced.SIGNATURE_AGENTS.keys()]).toEqual(['https://agent.example'])
    expect([...unset.keys()].every((origin) => origin.startsWith('https://'))).toBe(true)
  })

  it('takes plain http:// only for a loopback origin the lab lists, and says what is wrong', () => {
    expect(parseTrustList('http://127.0.0.1:8080=Local agent').get('http://127.0.0.1:8080')?.name).toBe(
      'Local agent',
    )
    expect(() => loadServerEnv({ SIGNATURE_AGENTS: 'http://agent.example=Plain' })).toThrow(ConfigError)
    expect(() => parseTrustList('http://agent.example=Plain')).toThrow(/not https/)
    expect(() => parseTrustList('https://agent.example/keys=Path')).toThrow(/not an origin/)
    expect(() => parseTrustList('https://agent.example')).toThrow(/no display name/)
  })
})

describe('Signature-Agent', () => {
  it('parses the plain string and the dictionary, by the signature label, with its type', () => {
    expect(signatureAgentEntry('"https://chatgpt.com"', 'sig1')).toEqual({
      uri: 'https://chatgpt.com',
      type: 'directory',
    })
    expect(
      signatureAgentEntry('sig2="https://a.example", sig1="https://b.example";type=jwks_uri', 'sig1'),
    ).toEqual({
      uri: 'https://b.example',
      type: 'jwks_uri',
    })
    expect(signatureAgentEntry('g="https://agent.bot.goog"', 'g')).toEqual({
      uri: 'https://agent.bot.goog',
      type: 'directory',
    })
    expect(signatureAgentEntry('sig1="https://a.example/client.json";type=cimd', 'sig1')).toEqual({
      uri: 'https://a.example/client.json',
      type: 'cimd',
    })
    expect(signatureAgentEntry('sig1="https://a.example";type=unknown', 'sig1')).toBeUndefined()
    expect(signatureAgentEntry('not a header', 'sig1')).toBeUndefined()
  })
})

describe("a listed agent's directory", () => {
  it('is cached for its Cache-Control lifetime, within bounds', async () => {
    answers.set('/cached', { body: KEYS, headers: { 'Cache-Control': 'max-age=120' } })
    let now = 1_000_000
    const directories = new KeyDirectories(limits, () => now)
    const keyId = await testKeyId()
    expect((await directories.keys(`${origin}/cached`))?.has(keyId)).toBe(true)
    await directories.keys(`${origin}/cached`)
    now += 119_000
    await directories.keys(`${origin}/cached`)
    expect(asked.get('/cached')).toBe(1)
    now += 2_000
    await directories.keys(`${origin}/cached`)
    expect(asked.get('/cached')).toBe(2)
    expect(lifetimeOf('no-store', limits)).toBe(limits.minSeconds)
    expect(lifetimeOf('max-age=99999999', limits)).toBe(limits.maxSeconds)
  })

  it('is unreachable when too slow, too large or not a directory, and asked again only after a while', async () => {
    answers.set('/slow', { body: KEYS, delayMs: 1000 })
    answers.set('/large', { body: JSON.stringify({ keys: [RFC9421_ED25519_PUBLIC], pad: 'x'.repeat(5000) }) })
    answers.set('/broken', { body: 'not json' })
    const directories = new KeyDirectories(limits)
    for (const path of ['/slow', '/large', '/broken', '/missing'])
      expect(await directories.keys(`${origin}${path}`), path).toBeUndefined()
    await directories.keys(`${origin}/broken`)
    expect(asked.get('/broken')).toBe(1)
  })

  it('is read when its own signature holds, and refused when it does not', async () => {
    const url = `${origin}/signed`
    const signer = await signerFromJWK(RFC9421_ED25519_TEST_KEY)
    const now = Date.now()
    const pair = {
      request: { method: 'GET', url, headers: {} },
      response: { status: 200, headers: {} },
    }
    const headers = await directoryResponseHeaders(pair, [signer], {
      created: new Date(now),
      expires: new Date(now + 60_000),
    })
    answers.set('/signed', { body: KEYS, headers: { ...headers } })
    answers.set('/forged', {
      body: KEYS,
      headers: { ...headers, Signature: headers.Signature.replace(/[A-Z]/, 'a') },
    })
    const directories = new KeyDirectories(limits)
    expect((await directories.keys(url))?.size).toBe(1)
    expect(await directories.keys(`${origin}/forged`)).toBeUndefined()
  })
})

describe("a `jwks_uri` or `cimd` entry's keys", () => {
  const agent = () => ({ origin, name: 'Test agent' })
  const client = (path: string, rest: object) => ({
    body: JSON.stringify({ client_id: `${origin}${path}`, ...rest }),
  })

  it('are read from the JWKS or the client metadata document on the listed origin, and nowhere else', () => {
    const jwks = keySource({ uri: `${origin}/keys.jwks`, type: 'jwks_uri' }, agent())
    expect(jwks).toEqual({ url: `${origin}/keys.jwks`, kind: 'jwks' })
    const cimd = keySource({ uri: `${origin}/client.json`, type: 'cimd' }, agent())
    expect(cimd).toEqual({ url: `${origin}/client.json`, kind: 'cimd' })
    expect(
      keySource({ uri: 'https://elsewhere.example/keys.jwks', type: 'jwks_uri' }, agent()),
    ).toBeUndefined()
    expect(keySource({ uri: 'https://elsewhere.example/c.json', type: 'cimd' }, agent())).toBeUndefined()
  })

  it("a document's own `jwks`, or its `jwks_uri` on its origin; one naming another client or origin gives none", async () => {
    const keyId = await testKeyId()
    answers.set('/keys.jwks', { body: KEYS })
    answers.set('/inline.json', client('/inline.json', { jwks: { keys: [RFC9421_ED25519_PUBLIC] } }))
    answers.set('/by-uri.json', client('/by-uri.json', { jwks_uri: `${origin}/keys.jwks` }))
    answers.set('/away.json', client('/away.json', { jwks_uri: 'https://elsewhere.example/keys.jwks' }))
    answers.set('/other.json', client('/someone-else.json', { jwks: { keys: [RFC9421_ED25519_PUBLIC] } }))
    answers.set('/keyless.json', client('/keyless.json', { client_name: 'No keys' }))
    const directories = new KeyDirectories(limits)
    expect((await directories.keys(`${origin}/inline.json`, 'cimd'))?.has(keyId)).toBe(true)
    expect((await directories.keys(`${origin}/by-uri.json`, 'cimd'))?.has(keyId)).toBe(true)
    await directories.keys(`${origin}/by-uri.json`, 'cimd')
    expect([asked.get('/by-uri.json'), asked.get('/keys.jwks')]).toEqual([1, 1])
    for (const path of ['/away.json', '/other.json', '/keyless.json', '/keys.jwks'])
      expect(await directories.keys(`${origin}${path}`, 'cimd'), path).toBeUndefined()
  })

  it("a key is named by its thumbprint, or by the directory's own kid", async () => {
    answers.set('/with-kid', { body: JSON.stringify({ keys: [{ ...RFC9421_ED25519_PUBLIC, kid: 'g-1' }] }) })
    const keys = await new KeyDirectories(limits).keys(`${origin}/with-kid`)
    expect(keys?.get('g-1')).toBe(keys?.get(await testKeyId()))
    expect(keys?.get('g-1')).toBeDefined()
  })
})

describe("an agent record as import takes it (the table's own check)", () => {
  it('takes a declared one and a verified one; refuses a verified one without its key, or with a failure', () => {
    expect(storedAgentProblem({ name: 'claude-code', version: '1.0' })).toBeUndefined()
    const verified = {
      verified: true,
      signature_agent: 'https://chatgpt.com',
      signature_agent_name: 'ChatGPT agent',
      key_id: 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U',
      checked_at: '2024-12-01T09:00:00.000Z',
    }
    expect(storedAgentProblem(verified)).toBeUndefined()
    const { key_id: _, ...keyless } = verified
    expect(storedAgentProblem(keyless)).toMatch(/verified without/)
    expect(storedAgentProblem({ ...verified, failure: 'expired' })).toMatch(/verified without/)
    expect(storedAgentProblem({ verified: false, failure: 'forged' })).toMatch(/a failure not one of/)
    expect(storedAgentProblem({ name: 'x', user_agent: 'curl' })).toMatch(/does not have/)
  })
})
