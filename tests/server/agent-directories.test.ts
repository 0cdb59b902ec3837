import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { directoryResponseHeaders } from 'web-bot-auth'
import { signerFromJWK } from 'web-bot-auth/crypto'
import { RFC9421_ED25519_PUBLIC, RFC9421_ED25519_TEST_KEY, testKeyId } from '../../harness/signing-agent'
import { storedAgentProblem } from '../../server/agents/agent-record'
import { DIRECTORY_LIMITS, KeyDirectories, lifetimeOf } from '../../server/agents/key-directory'
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
    expect([...parseTrustList(DEFAULT_SIGNATURE_AGENTS).values()]).toContainEqual({
      origin: 'https://chatgpt.com',
      name: 'ChatGPT agent',
    })
    const list = parseTrustList('default,-https://chatgpt.com, https://agent.example/=Example agent')
    expect([...list.keys()]).toEqual(['https://agent.example'])
    expect(loadServerEnv({}).SIGNATURE_AGENTS.get('https://chatgpt.com')?.name).toBe('ChatGPT agent')
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
