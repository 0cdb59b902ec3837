import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { siteConfig } from '../../contract/site-config'
import { outcomeMessages } from '../../contract/waitlist-outcome'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import packageJson from '../../package.json' with { type: 'json' }
import { sourcesReport } from '../../server/analytics/sources-report'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { storedEmails } from '../reliability/support'
import { MODERN_MCP, modernEnvelope, modernHeaders, postMcp } from '../support/mcp-raw'

/**
 * /mcp answers both protocol eras on the same path, over real HTTP: a client pinned to MCP
 * 2026-07-28 (the v2 client, no `initialize`, `server/discover` first) and 2025 clients (SDK v1's
 * client, and v2's in its default legacy mode). The answers, the write limit, the refusal of
 * unexpected arguments and the counting by source are the same for each.
 */
const TOOL = requestAccessTool.name
const MODERN = MODERN_MCP
const words = (status: keyof typeof outcomeMessages) =>
  `${outcomeMessages[status].title} ${outcomeMessages[status].description}`

type Result = { isError?: boolean; structuredContent?: unknown; content?: unknown }
interface EraClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Result>
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown; description?: string }[] }>
  getServerVersion(): { name: string; version: string } | undefined
  close(): Promise<void>
}

let server: TestServer
let database: OpenedDatabase
let addresses = 0

/** A client of each kind, each from an address of its own (the limit is per address). */
const v2Client =
  (mode: 'legacy' | { pin: string }) =>
  async (name: string, address: string): Promise<EraClient> => {
    const client = new ClientV2({ name, version: '1.0.0' }, { versionNegotiation: { mode } })
    await client.connect(
      new TransportV2(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { 'x-forwarded-for': address } },
      }),
    )
    return client
  }

const CLIENTS = {
  'v2 pinned to 2026-07-28': v2Client({ pin: MODERN }),
  // 'legacy' is the v2 client's default: the plain 2025 connect.
  'v2 in legacy mode (2025)': v2Client('legacy'),
  'SDK v1 (2025)': async (name: string, address: string): Promise<EraClient> => {
    const client = new ClientV1({ name, version: '1.0.0' })
    await client.connect(
      new TransportV1(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { 'x-forwarded-for': address } },
      }),
    )
    return client as unknown as EraClient
  },
}
type Kind = keyof typeof CLIENTS

const connect = (kind: Kind, name = 'mcp-eras') => CLIENTS[kind](name, `198.51.100.${++addresses}`)

beforeAll(async () => {
  const url = await sharedPostgresUrl()
  server = await startTestServer({
    env: {
      DATABASE_URL: url,
      TRUST_PROXY_HEADER: 'x-forwarded-for',
      COUNT_SOURCES_FLUSH_MS: '100',
      // Two writes back to back per address, then one a minute.
      RATE_LIMIT_PER_MINUTE: '1',
      RATE_LIMIT_BURST: '2',
    },
  })
  database = await openDatabase({ databaseUrl: url, dataDir: '' })
})

afterAll(async () => {
  await database?.close()
  await server?.cleanup()
  await stopBackends()
})

describe('a client pinned to MCP 2026-07-28', () => {
  it('finds the revision through server/discover, and lists the tool with cache hints', async () => {
    const client = new ClientV2(
      { name: 'pinned', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    )
    await client.connect(new TransportV2(new URL(`${server.url}/mcp`)))
    try {
      expect(client.getDiscoverResult()?.supportedVersions).toContain(MODERN)
      expect(client.getServerVersion()).toMatchObject({
        name: siteConfig.labName,
        version: packageJson.version,
      })
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual([TOOL])
      expect(tools[0]?.inputSchema).toMatchObject(requestAccessTool.inputSchema)
    } finally {
      await client.close()
    }
    // On the wire: no initialize, the envelope and headers in, resultType and cache fields out.
    const discover = await postMcp(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernEnvelope() } },
      modernHeaders('server/discover'),
    )
    expect(discover.status).toBe(200)
    expect(discover.body.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      resultType: 'complete',
      cacheScope: 'public',
      ttlMs: 3_600_000,
    })
    const listed = await postMcp(
      server.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernEnvelope() } },
      modernHeaders('tools/list'),
    )
    expect(listed.body.result).toMatchObject({
      resultType: 'complete',
      cacheScope: 'public',
      ttlMs: 3_600_000,
    })
    expect(listed.body.result?.tools?.map((tool) => tool.name)).toEqual([TOOL])
  })
  it('is what a v2 client in auto mode picks: it no longer falls back to 2025-11-25', async () => {
    const client = new ClientV2({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new TransportV2(new URL(`${server.url}/mcp`)))
    try {
      expect(client.getDiscoverResult()?.supportedVersions).toEqual([MODERN])
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([TOOL])
    } finally {
      await client.close()
    }
  })

  it('holds no stream open: subscriptions/listen is acknowledged with nothing to listen to, and ends', async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        Accept: 'application/json, text/event-stream',
        'Content-Type': 'application/json',
        ...modernHeaders('subscriptions/listen'),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: modernEnvelope() },
      }),
    })
    // The whole body arrives: the server ends the stream itself, with no tool list that changes.
    const text = await response.text()
    expect(text).toContain('"notifications":{}')
    expect(text).toMatch(/"id":3,"result":\{"resultType":"complete"/)
  })
})

describe.each(Object.keys(CLIENTS) as Kind[])('%s', (kind) => {
  const unique = `${kind.replace(/\W+/g, '-').toLowerCase()}.${process.pid}.${Date.now()}`

  it('lists the tool and requests access: submitted, then already_registered, one row', async () => {
    const client = await connect(kind)
    try {
      expect(client.getServerVersion()).toMatchObject({ name: siteConfig.labName })
      const { tools } = await client.listTools()
      expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
        [TOOL, requestAccessTool.description],
      ])
      const email = `eras.${unique}@example.com`
      expect(await client.callTool({ name: TOOL, arguments: { email } })).toMatchObject({
        isError: false,
        structuredContent: { status: 'submitted', message: words('submitted') },
        content: [{ type: 'text', text: words('submitted') }],
      })
      expect(await client.callTool({ name: TOOL, arguments: { email: email.toUpperCase() } })).toMatchObject({
        isError: false,
        structuredContent: { status: 'already_registered', message: words('already_registered') },
      })
      expect((await storedEmails(server)).filter((row) => row === email)).toEqual([email])
    } finally {
      await client.close()
    }
  })

  it('gives the same refusals, storing nothing: a field the tool does not take, a bad address', async () => {
    const before = await storedEmails(server)
    const results = []
    for (const args of [
      { email: `eras.trap.${unique}@example.com`, website: 'https://spam.example' },
      { email: 'not-an-address' },
      {},
    ]) {
      // Each call is a write against the limit: a client (an address) for each.
      const client = await connect(kind)
      const { isError, structuredContent, content } = await client.callTool({ name: TOOL, arguments: args })
      results.push({ isError, structuredContent, content })
      await client.close()
    }
    expect(results).toEqual(refusals)
    expect(await storedEmails(server)).toEqual(before)
    const client = await connect(kind)
    await expect(client.callTool({ name: 'delete_waitlist', arguments: {} })).rejects.toThrow(
      /Unknown tool "delete_waitlist": this server has one tool, request_beta_access/,
    )
    await client.close()
  })

  it('counts tool calls against the per-address write limit: two, then 429 with the wait', async () => {
    const client = await connect(kind)
    try {
      const outcomes: string[] = []
      for (let i = 0; i < 3; i++) {
        await client.listTools() // a read: never uses up the writes
        outcomes.push(
          await client
            .callTool({ name: TOOL, arguments: { email: `eras.limit.${i}.${unique}@example.com` } })
            .then((answer) => (answer.structuredContent as { status: string }).status)
            .catch((error: Error) => error.message),
        )
      }
      expect(outcomes.slice(0, 2)).toEqual(['submitted', 'submitted'])
      expect(outcomes[2]).toMatch(/Too many requests from this address: try again in \d+ seconds?/)
    } finally {
      await client.close()
    }
  })
})

/** The refusals each client must see, word for word. */
const reasonResult = (reason: string) => ({
  isError: true,
  structuredContent: { status: 'error', message: words('error'), reason },
  content: [{ type: 'text', text: `${words('error')} ${reason}` }],
})
const refusals = [
  reasonResult(
    'Invalid arguments: unexpected argument "website": the tool takes only "email", "name", "role", "organisation", "use_case". Call it with {"email": "…"}.',
  ),
  reasonResult(
    'The address was refused: the waitlist takes one valid e-mail address (as an HTML e-mail field defines it), without surrounding spaces, of at most 254 characters.',
  ),
  reasonResult('Invalid arguments: the argument "email" is required. Call it with {"email": "…"}.'),
]

describe('signups through either era', () => {
  it("count under source mcp with the client's name as the medium", async () => {
    for (const [kind, name] of [
      ['v2 pinned to 2026-07-28', 'cursor'],
      ['SDK v1 (2025)', 'claude-ai'],
    ] as const) {
      const client = await connect(kind, name)
      const result = await client.callTool({
        name: TOOL,
        arguments: { email: `eras.source.${name}@example.com` },
      })
      expect(result.isError).toBe(false)
      await client.close()
    }
    const expected = ['claude-ai', 'cursor']
    let mediums: string[] = []
    for (let attempt = 0; attempt < 100 && !expected.every((name) => mediums.includes(name)); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const report = await sourcesReport(database.db, 30)
      mediums = (report.find((row) => row.source === 'mcp')?.campaigns ?? []).map((row) => row.medium)
    }
    expect(mediums).toEqual(expect.arrayContaining(expected))
  })
})

describe('a malformed MCP request', () => {
  const oneLine = (message: unknown) => {
    expect(typeof message).toBe('string')
    const text = message as string
    expect(text).not.toContain('\n')
    expect(text.length).toBeLessThanOrEqual(400)
    // No schema library's report, no stack.
    expect(text).not.toMatch(/"code":|"expected":|\bat \S+ \(|node_modules/)
  }

  it('a bad initialize gets invalid params in one line that names what is wrong', async () => {
    for (const [params, named] of [
      [undefined, /^Invalid params: params: expected object, received undefined$/],
      [{ foo: 1 }, /params\.protocolVersion: expected string, received undefined/],
      [
        { protocolVersion: 5, capabilities: 'all', clientInfo: {} },
        /params\.protocolVersion: expected string, received number; .*\(and \d+ more\)$/,
      ],
    ] as const) {
      const { status, body } = await postMcp(server.url, {
        jsonrpc: '2.0',
        id: 4,
        method: 'initialize',
        params,
      })
      expect([params, status, body.id, body.error?.code]).toEqual([params, 200, 4, -32602])
      oneLine(body.error?.message)
      expect(body.error?.message).toMatch(named)
    }
  })

  it('other malformed requests of either era get one line too', async () => {
    const answers = [
      await postMcp(server.url, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: 'all' }),
      await postMcp(server.url, {
        jsonrpc: '2.0',
        id: 6,
        method: 'tools/call',
        params: { name: TOOL, arguments: 'x' },
      }),
      await postMcp(server.url, '{"jsonrpc": "2.0", "id": 7, "method": '),
      await postMcp(server.url, { jsonrpc: '1.0', method: 5 }),
      // 2026-07-28 requests with a broken envelope, an unknown revision, or headers that disagree.
      await postMcp(
        server.url,
        {
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/list',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
        },
        modernHeaders('tools/list'),
      ),
      await postMcp(
        server.url,
        {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/list',
          params: { _meta: { ...modernEnvelope(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
        },
        { ...modernHeaders('tools/list'), 'Mcp-Protocol-Version': '2099-01-01' },
      ),
      await postMcp(
        server.url,
        { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: modernEnvelope() } },
        modernHeaders('tools/call'),
      ),
    ]
    for (const { status, body } of answers) {
      expect([status, body.error?.code]).not.toEqual([200, undefined])
      expect(body.error?.code).toBeLessThan(0)
      oneLine(body.error?.message)
    }
    expect(answers.map(({ body }) => body.error?.code)).toEqual([
      -32600, -32602, -32700, -32600, -32602, -32022, -32020,
    ])
    expect(server.output()).not.toMatch(/\n\s+at /)
  })
})
