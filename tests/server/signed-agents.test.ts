import { generateKeyPairSync } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { agentCell } from '../../contract/agent-words'
import {
  type AgentDirectory,
  KEY_PATHS,
  serveDirectory,
  signedHeaders,
  testKeyId,
} from '../../harness/signing-agent'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { modernEnvelope, modernHeaders, postMcp } from '../support/mcp-raw'

/**
 * Issue 67: Web Bot Auth on every way in, through the real interfaces. An agent signs with
 * `web-bot-auth` and RFC 9421's Ed25519 test key; its directory is served on loopback and listed in
 * SIGNATURE_AGENTS; a second directory, unlisted, must never be asked. Each signup goes in whatever
 * its signature comes to, and `show --json` reads the record the signup's transaction wrote.
 */
let server: TestServer
let listed: AgentDirectory
let unlisted: AgentDirectory
let keyId: string
let studio: StudioProcess | undefined

beforeAll(async () => {
  ;[listed, unlisted] = await Promise.all([serveDirectory(), serveDirectory()])
  keyId = await testKeyId()
  server = await startTestServer({
    env: {
      SIGNATURE_AGENTS: `default,${listed.origin}=Test agent`,
      RATE_LIMIT_PER_MINUTE: '0',
      COUNT_SOURCES_FLUSH_MS: '100',
    },
  })
})

afterAll(async () => {
  await studio?.stop()
  await server?.cleanup()
  await Promise.all([listed?.close(), unlisted?.close()])
})

async function agentOf(email: string) {
  const shown = await runCli(server.env, 'show', email, '--json')
  expect(shown.code, shown.stderr).toBe(0)
  return JSON.parse(shown.stdout).consent.agent
}

const restUrl = () => `${server.url}/rest/v1/waitlist`
const plain = (origin: string) => `"${origin}"`

async function signedRest(email: string, headers: Record<string, string>) {
  const response = await postWaitlist(server, { email }, headers)
  expect(response.status).toBe(201)
}

/** The MCP tool's signup, as `client` declares itself, with the signature's headers. */
function signedMcp(email: string, client: string, headers: Record<string, string>) {
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: requestAccessTool.name, arguments: { email }, _meta: modernEnvelope(client) },
  }
  return postMcp(server.url, call, { ...modernHeaders('tools/call', requestAccessTool.name), ...headers })
}

describe('a signed signup', () => {
  it('over REST, from a listed agent: verified, with its origin, display name and key', async () => {
    const headers = await signedHeaders(restUrl(), { signatureAgent: plain(listed.origin) })
    await signedRest('signed.rest@example.com', headers)
    expect(await agentOf('signed.rest@example.com')).toEqual({
      name: null,
      version: null,
      verified: true,
      signature_agent: listed.origin,
      signature_agent_name: 'Test agent',
      key_id: keyId,
      checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      failure: null,
    })
  })

  it('over MCP, with the dictionary form of Signature-Agent: verified beside the client it declared', async () => {
    const headers = await signedHeaders(`${server.url}/mcp`, {
      signatureAgent: `sig1=${plain(listed.origin)}`,
    })
    const answer = await signedMcp('signed.mcp@example.com', 'signed-client', headers)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result?.isError).toBeFalsy()
    expect(await agentOf('signed.mcp@example.com')).toMatchObject({
      name: 'signed-client',
      version: '1.0.0',
      verified: true,
      signature_agent: listed.origin,
      key_id: keyId,
      failure: null,
    })
  })

  it("through the page's form POST, as a browser agent that signs sends it: verified", async () => {
    const headers = await signedHeaders(`${server.url}/`, { signatureAgent: plain(listed.origin) })
    const posted = await fetch(`${server.url}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: server.url, ...headers },
      body: new URLSearchParams({ email: 'signed.form@example.com' }),
    })
    expect(posted.headers.get('location')).toBe('/?waitlist=submitted')
    expect(await agentOf('signed.form@example.com')).toMatchObject({
      name: null,
      verified: true,
      key_id: keyId,
    })
  })

  it('the directory was fetched once for all three, and kept', () => {
    expect(listed.requests()).toBe(1)
  })
})

describe("Signature-Agent's other entry types, at the listed agent's origin (ADR 125)", () => {
  const entry = (path: string, type: string) => `sig1=${plain(`${listed.origin}${path}`)};type=${type}`
  // Read when each test runs: the directory and its key are known after beforeAll.
  const verifiedBy = () => ({ verified: true, signature_agent: listed.origin, key_id: keyId, failure: null })

  it('`jwks_uri`: verified with the keys at that address', async () => {
    const headers = await signedHeaders(restUrl(), { signatureAgent: entry(KEY_PATHS.jwksUri, 'jwks_uri') })
    await signedRest('signed.jwks@example.com', headers)
    expect(await agentOf('signed.jwks@example.com')).toMatchObject(verifiedBy())
    expect(listed.requests(KEY_PATHS.jwksUri)).toBe(1)
  })

  it('`cimd`: verified with the keys its client metadata document leads to, over MCP', async () => {
    const headers = await signedHeaders(`${server.url}/mcp`, {
      signatureAgent: entry(KEY_PATHS.cimd, 'cimd'),
    })
    const answer = await signedMcp('signed.cimd@example.com', 'cimd-client', headers)
    expect(answer.body.result?.isError, JSON.stringify(answer.body)).toBeFalsy()
    expect(await agentOf('signed.cimd@example.com')).toMatchObject({ name: 'cimd-client', ...verifiedBy() })
    // The document once, and the JWKS it names already kept from the entry above.
    expect([listed.requests(KEY_PATHS.cimd), listed.requests(KEY_PATHS.jwksUri)]).toEqual([1, 1])
  })
})

describe('a signature that does not hold: recorded as failed, and the signup goes in', () => {
  it('expired', async () => {
    const headers = await signedHeaders(restUrl(), {
      signatureAgent: plain(listed.origin),
      createdIn: -120,
      expiresIn: -60,
    })
    await signedRest('expired@example.com', headers)
    expect(await agentOf('expired@example.com')).toMatchObject({ verified: false, failure: 'expired' })
  })

  it('a key the directory does not list', async () => {
    const { privateKey } = generateKeyPairSync('ed25519')
    const key = privateKey.export({ format: 'jwk' }) as JsonWebKey
    const headers = await signedHeaders(restUrl(), { signatureAgent: plain(listed.origin), key })
    await signedRest('other.key@example.com', headers)
    expect(await agentOf('other.key@example.com')).toMatchObject({
      verified: false,
      signature_agent: listed.origin,
      failure: 'unknown key',
    })
  })

  it('a nonce used again: the first signup verified, the second not', async () => {
    const headers = await signedHeaders(restUrl(), { signatureAgent: plain(listed.origin) })
    await signedRest('nonce.first@example.com', headers)
    await signedRest('nonce.again@example.com', headers)
    expect(await agentOf('nonce.first@example.com')).toMatchObject({ verified: true })
    expect(await agentOf('nonce.again@example.com')).toMatchObject({
      verified: false,
      failure: 'replayed nonce',
    })
  })

  it('a body that is not a signature at all', async () => {
    await signedRest('garbled@example.com', { 'Signature-Input': 'not a dictionary', Signature: 'x' })
    expect(await agentOf('garbled@example.com')).toMatchObject({ verified: false, failure: 'bad signature' })
  })

  it('an unlisted agent: its directory gets no request, its Signature-Agent is kept as text', async () => {
    const headers = await signedHeaders(restUrl(), { signatureAgent: plain(unlisted.origin) })
    await signedRest('unlisted@example.com', headers)
    expect(await agentOf('unlisted@example.com')).toMatchObject({
      verified: false,
      signature_agent: plain(unlisted.origin),
      signature_agent_name: null,
      failure: 'unlisted agent',
    })
    expect(unlisted.requests()).toBe(0)
  })
})

describe('an unsigned signup', () => {
  it('stays as declared: no proof, and the person reads who named it', async () => {
    await signedRest('unsigned@example.com', { Origin: server.url, 'X-Waitlist-Door': 'webmcp' })
    expect(await agentOf('unsigned@example.com')).toEqual({
      name: 'webmcp',
      version: null,
      verified: false,
      signature_agent: null,
      signature_agent_name: null,
      key_id: null,
      checked_at: null,
      failure: null,
    })
    const shown = await runCli(server.env, 'show', 'unsigned@example.com')
    expect(shown.stdout).toContain('agent webmcp (named by the program, not verified)')
    const verified = await runCli(server.env, 'show', 'signed.rest@example.com')
    expect(verified.stdout).toContain('agent Test agent (verified)')
    expect(verified.stdout).toContain(`signed by ${listed.origin}, key ${keyId}`)
  })

  it("the person's own page says which agent, and whether it was verified, in plain words", async () => {
    const page = async (email: string) => {
      const token = sealAddress(linkKeys(server.secret).yourData, email)
      return (await fetch(`${server.url}/your-data?t=${token}`)).text()
    }
    expect(await page('signed.rest@example.com')).toContain('made through Test agent (verified)')
    expect(await page('signed.mcp@example.com')).toContain('made through Test agent (verified)')
    expect(await page('expired@example.com')).toContain(
      'made through Test agent (named by the program, not verified)',
    )
    expect(await page('unsigned@example.com')).toContain(
      'made through webmcp (named by the program, not verified)',
    )
  })
})

/** The verified signups above: REST, MCP, the form's, `jwks_uri`'s, `cimd`'s, and the first of the nonce's two. */
const VERIFIED = [
  'nonce.first@example.com',
  'signed.cimd@example.com',
  'signed.form@example.com',
  'signed.jwks@example.com',
  'signed.mcp@example.com',
  'signed.rest@example.com',
]

async function cliOut(...args: string[]) {
  const result = await runCli(server.env, ...args)
  expect(result.code, result.stderr).toBe(0)
  return result.stdout
}

describe('the lab counts by agent', () => {
  it('count, list and export take --agent NAME (declared, or a verified display name or origin) and --agent-verified', async () => {
    expect((await cliOut('count', '--agent-verified')).trim()).toBe(String(VERIFIED.length))
    expect((await cliOut('count', '--agent', 'test AGENT')).trim()).toBe(String(VERIFIED.length))
    expect((await cliOut('count', '--agent', listed.origin)).trim()).toBe(String(VERIFIED.length))
    expect((await cliOut('count', '--agent', 'webmcp')).trim()).toBe('1')
    expect((await cliOut('count', '--agent', 'signed-client', '--agent-verified')).trim()).toBe('1')
    const listedJson = (await cliOut('list', '--agent-verified', '--json')).trim().split('\n')
    expect(listedJson.map((line) => JSON.parse(line).email).sort()).toEqual(VERIFIED)
    const exported = await cliOut('export', '--agent-verified')
    expect(exported.trim().split('\n')).toHaveLength(VERIFIED.length + 1)
    expect(exported).toContain('""verified"": true')
    const invite = await runCli(server.env, 'invite', '--next', '10', '--agent-verified', '--dry-run')
    expect(invite.stdout).toContain(`Dry run: ${VERIFIED.length} invitations would be queued.`)
    expect(invite.stdout).toContain('match --agent-verified')
    for (const email of VERIFIED) expect(invite.stdout).toContain(`  ${email}  (waiting)`)
  })

  it("the studio's Agent column and filter agree with count --agent-verified", async () => {
    studio = await startStudioProcess(server.env)
    const entries = async (query: string) => {
      const response = await fetch(`${studio?.origin}/api/entries?${query}`, {
        headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio?.token}` },
      })
      expect(response.status, query).toBe(200)
      return ((await response.json()) as { entries: { email: string; consent_agent: string }[] }).entries
    }
    const verified = await entries('agent-verified=true')
    expect(verified.map((entry) => entry.email).sort()).toEqual(VERIFIED)
    expect(verified.map((entry) => agentCell(entry.consent_agent))).toEqual(
      VERIFIED.map(() => 'Test agent (verified)'),
    )
    const all = await entries('sort=agent&order=asc')
    const cells = all.map((entry) => agentCell(entry.consent_agent))
    expect(cells.filter((cell) => cell === 'Test agent (verified)')).toHaveLength(VERIFIED.length)
    expect(cells).toContain('webmcp')
    const funnel = await fetch(`${studio.origin}/api/funnel?by=agent&days=all`, {
      headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
    })
    expect(((await funnel.json()) as { rows: unknown[] }).rows).toContainEqual(
      expect.objectContaining({ agent: { name: 'Test agent', verified: true }, signups: VERIFIED.length }),
    )
  })

  it('funnel --by agent and sources show the verified agent apart from the names declared', async () => {
    const funnel = JSON.parse(await cliOut('funnel', '--by', 'agent', '--json'))
    expect(funnel.rows).toContainEqual(
      expect.objectContaining({ agent: { name: 'Test agent', verified: true }, signups: VERIFIED.length }),
    )
    expect(funnel.rows).toContainEqual(
      expect.objectContaining({ agent: { name: 'webmcp', verified: false }, signups: 1 }),
    )
    const sources = await cliOut('sources', '--days', 'all')
    expect(sources).toMatch(new RegExp(`Test agent \\(verified\\)\\s+${VERIFIED.length}\\b`))
    expect(await cliOut('funnel', '--by', 'agent')).toMatch(
      new RegExp(`Test agent \\(verified\\)\\s+${VERIFIED.length}\\b`),
    )
  })
})
