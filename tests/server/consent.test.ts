import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { formText, toolText, wordsVersion } from '../../server/waitlist/consent/door-words'
import { MODERN_MCP } from '../support/mcp-raw'

/**
 * Issue 53, item 1: each entry's consent record, written with its signup, read back through the
 * owner's CLI as a process. Each door is taken as a client takes it: the REST insert as a page's
 * browser and as a program send it, the no-script form, and MCP with the SDK's client, which names
 * itself; then export → import brings the record back.
 */
let server: TestServer
let scratch: string
let addresses = 0

beforeAll(async () => {
  server = await startTestServer({ env: { TRUST_PROXY_HEADER: 'x-forwarded-for' } })
  scratch = await mkdtemp(join(tmpdir(), 'consent-'))
})

afterAll(async () => {
  await server?.cleanup()
  await rm(scratch, { recursive: true, force: true })
})

const FORM = wordsVersion(formText(false))
const TOOL = wordsVersion(toolText(false))

async function consentOf(email: string) {
  const shown = await runCli(server.env, 'show', email, '--json')
  expect(shown.code, shown.stderr).toBe(0)
  return JSON.parse(shown.stdout).consent
}

/** The SDK's client, naming itself, from an address of its own: `pin` speaks 2026-07-28, else 2025. */
async function signUpOverMcp(email: string, name: string, pin?: string) {
  const client = new Client({ name, version: '3.1.4' }, pin ? { versionNegotiation: { mode: { pin } } } : {})
  const address = `198.51.100.${++addresses}`
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { 'x-forwarded-for': address } },
    }),
  )
  try {
    const result = await client.callTool({ name: requestAccessTool.name, arguments: { email } })
    expect(result.isError).toBeFalsy()
  } finally {
    await client.close()
  }
}

describe('the consent record', () => {
  it('of an MCP signup: door mcp, the tool words, the agent as its client declared it, in both eras', async () => {
    await signUpOverMcp('agent.2025@example.com', 'Claude Code')
    await signUpOverMcp('agent.2026@example.com', 'cursor-agent', MODERN_MCP)
    for (const [email, name] of [
      ['agent.2025@example.com', 'Claude Code'],
      ['agent.2026@example.com', 'cursor-agent'],
    ]) {
      const consent = await consentOf(email as string)
      expect(consent).toMatchObject({
        door: 'mcp',
        words: { version: TOOL.version, text: TOOL.text },
        agent: { name, version: '3.1.4', verified: false },
        confirmed_at: null,
      })
      // The network as the logs cut it: the /24, never the address.
      expect(consent.network).toMatch(/^198\.51\.100\.0\/24$/)
      expect(Date.parse(consent.at)).toBeGreaterThan(Date.now() - 60_000)
    }
    expect(TOOL.text).toContain(requestAccessTool.description)
  })

  it('of a REST insert: page from the site own origin, webmcp when its tool says so, api from a program; form without script', async () => {
    const page = { Origin: server.url, 'x-forwarded-for': '2001:db8:abcd:12:1::7' }
    expect((await postWaitlist(server, { email: 'by.page@example.com' }, page)).status).toBe(201)
    const agent = { ...page, 'X-Waitlist-Door': 'webmcp' }
    expect((await postWaitlist(server, { email: 'by.webmcp@example.com' }, agent)).status).toBe(201)
    expect((await postWaitlist(server, { email: 'by.program@example.com' })).status).toBe(201)
    // A program that claims the header is still a program: the door needs the page's origin.
    const claimed = { 'X-Waitlist-Door': 'webmcp' }
    expect((await postWaitlist(server, { email: 'by.claim@example.com' }, claimed)).status).toBe(201)
    const posted = await fetch(`${server.url}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: server.url },
      body: new URLSearchParams({ email: 'by.form@example.com' }),
    })
    expect(posted.headers.get('location')).toBe('/?waitlist=submitted')

    expect(await consentOf('by.page@example.com')).toMatchObject({
      door: 'page',
      words: { version: FORM.version, text: FORM.text },
      // An IPv6 client's /48, the site it is in, where the entry keeps its /64 for send health.
      network: '2001:db8:abcd::/48',
      agent: null,
    })
    expect(FORM.text).toContain('Button: Request Access')
    expect(await consentOf('by.webmcp@example.com')).toMatchObject({
      door: 'webmcp',
      words: { version: TOOL.version },
      agent: { name: 'webmcp', version: null, verified: false },
    })
    for (const email of ['by.program@example.com', 'by.claim@example.com'])
      expect(await consentOf(email)).toMatchObject({ door: 'api', words: null, agent: null })
    expect(await consentOf('by.form@example.com')).toMatchObject({
      door: 'form',
      words: { version: FORM.version },
    })
  })

  it('consent-words lists each version once, with its hash, doors, uses and text', async () => {
    const listed = await runCli(server.env, 'consent-words', '--json')
    expect(listed.code).toBe(0)
    const versions = JSON.parse(listed.stdout) as { version: string; hash: string; doors: string[] }[]
    const form = versions.find((words) => words.version === FORM.version)
    const tool = versions.find((words) => words.version === TOOL.version)
    expect(form).toMatchObject({ hash: FORM.hash.toString('hex'), text: FORM.text, doors: ['form', 'page'] })
    expect(tool).toMatchObject({ hash: TOOL.hash.toString('hex'), text: TOOL.text, doors: ['mcp', 'webmcp'] })
    expect(tool).toMatchObject({ entries: 3, first: expect.any(String), last: expect.any(String) })
    const text = await runCli(server.env, 'consent-words')
    expect(text.stdout).toContain(`${FORM.version}  2 entries (form, page), first `)
    expect(text.stdout).toContain('  Button: Request Access')
  })

  it('export writes the consent columns, and import brings them back; a file without them records its name', async () => {
    const exported = await runCli(server.env, 'export')
    const [header, ...lines] = exported.stdout.split('\r\n')
    expect(header).toMatch(/,consent_at,consent_door,consent_words,consent_agent,confirmed_from,name$/)
    const agentLine = lines.find((line) => line.startsWith('agent.2025@example.com,'))
    expect(agentLine).toContain(`,mcp,${TOOL.version},"{""name"": ""Claude Code"", ""version"": ""3.1.4""}",`)

    // Moved elsewhere: this list, emptied of the two by `remove` and let back in by `unsuppress`.
    const file = join(scratch, 'moved.csv')
    await writeFile(file, [header, agentLine, ''].join('\r\n'))
    await runCli(server.env, 'remove', 'agent.2025@example.com')
    expect(await runCli(server.env, 'unsuppress', 'agent.2025@example.com')).toMatchObject({
      code: 0,
      stdout: 'agent.2025@example.com may be imported again.\n',
    })
    expect((await runCli(server.env, 'import', file)).stdout).toContain('1 added')
    expect((await runCli(server.env, 'export')).stdout).toContain(`\r\n${agentLine}\r\n`)

    const plain = join(scratch, 'old-list.csv')
    await writeFile(plain, 'email\r\nfrom.a.file@example.com\r\n')
    expect((await runCli(server.env, 'import', plain)).code).toBe(0)
    const imported = await consentOf('from.a.file@example.com')
    expect(imported).toMatchObject({ door: 'import', network: null, agent: null })
    expect(imported.words.text).toBe(
      'Imported by the lab from the file old-list.csv; the words this person was shown are not known to the list.',
    )
  })
})
