import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { siteConfig } from '../../contract/site-config'
import { outcomeMessages } from '../../contract/waitlist-outcome'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import type { TestServer } from '../../harness/test-server'
import packageJson from '../../package.json' with { type: 'json' }
import { ownOrigins } from '../../server/http/site-cors'
import { asResponse, rawRequest, storedEmails } from '../reliability/support'

/**
 * /mcp as an agent outside a browser reaches it: through the SDK's own client over Streamable
 * HTTP, against the real server on each database, and with raw requests for what the SDK's client
 * would never send (bad JSON, batches, huge bodies, another site's Origin).
 */
const SITE = 'https://lab.example.com'
const TOOL = requestAccessTool.name
const words = (status: keyof typeof outcomeMessages) =>
  `${outcomeMessages[status].title} ${outcomeMessages[status].description}`

async function connect(server: TestServer): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
  return client
}

/** One raw POST to /mcp with the headers a Streamable HTTP client sends. */
function postMcp(server: TestServer, body: BodyInit, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'Mcp-Protocol-Version': LATEST_PROTOCOL_VERSION,
      ...headers,
    },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit)
}

const call = (id: number, email: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: TOOL, arguments: { email } },
})

async function expectJsonRpcError(response: Response, status: number, message: RegExp) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } }
  expect(body.jsonrpc).toBe('2.0')
  expect(body.error.code).toBeLessThan(0)
  expect(body.error.message).toMatch(message)
  return body
}

describe('the origins allowed to call /mcp', () => {
  it('are the listening ones (the three loopback names on loopback or a wildcard) and the public address', () => {
    const loopback = (port: number) => [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
    ]
    expect(ownOrigins('http://127.0.0.1:3000', `${SITE}/`)).toEqual([...loopback(3000), SITE])
    expect(ownOrigins('http://[::1]:8080', 'http://[::1]:8080')).toEqual(loopback(8080))
    expect(ownOrigins('http://10.0.0.5:3000', 'http://10.0.0.5:3000')).toEqual(['http://10.0.0.5:3000'])
    // HOST=0.0.0.0 listens on every interface: loopback's names and each interface's IPv4 address.
    const everywhere = ownOrigins('http://0.0.0.0:3000', SITE)
    expect(everywhere.slice(0, 3)).toEqual(loopback(3000))
    expect(everywhere).toContain(SITE)
    expect(everywhere).not.toContain('http://0.0.0.0:3000')
  })
})

describe.each(BACKENDS)('/mcp on $name', ({ name }) => {
  let server: TestServer
  /** The same server, with a write limit of 2 back to back and 1 a minute. */
  let limited: TestServer
  const unique = `${name}.${process.pid}.${Date.now()}`

  beforeAll(async () => {
    // One after the other: two first migrations at once on one cluster race to create its roles.
    server = await startServerOn(name, { env: { SITE_URL: SITE } })
    limited = await startServerOn(name, { env: { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '2' } })
  })
  afterAll(async () => {
    await Promise.all([server?.cleanup(), limited?.cleanup()])
    await stopBackends()
  })

  it('introduces itself with the lab name and the site version, and lists the tool with its schemas', async () => {
    const client = await connect(server)
    try {
      expect(client.getServerVersion()).toMatchObject({
        name: siteConfig.labName,
        version: packageJson.version,
      })
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(1)
      expect(tools[0]).toMatchObject({
        name: TOOL,
        description: requestAccessTool.description,
        inputSchema: requestAccessTool.inputSchema,
        outputSchema: {
          type: 'object',
          properties: { status: { enum: ['submitted', 'already_registered', 'error'] } },
          required: ['status', 'message'],
        },
      })
      expect(tools[0]?.inputSchema).toMatchObject({ required: ['email'], additionalProperties: false })
    } finally {
      await client.close()
    }
  })

  it('a new address gives submitted and a row; the same address in other letter case, already_registered', async () => {
    const email = `mcp.new.${unique}@example.com`
    const client = await connect(server)
    try {
      const first = await client.callTool({ name: TOOL, arguments: { email } })
      expect(first).toMatchObject({
        isError: false,
        structuredContent: { status: 'submitted', message: words('submitted') },
        content: [{ type: 'text', text: words('submitted') }],
      })
      expect(await storedEmails(server)).toContain(email)

      const again = await client.callTool({ name: TOOL, arguments: { email: email.toUpperCase() } })
      expect(again).toMatchObject({
        isError: false,
        structuredContent: { status: 'already_registered', message: words('already_registered') },
      })
      expect((again.content as { text: string }[])[0]?.text).toContain('Already on the waitlist!')
      const stored = await storedEmails(server)
      expect(stored.filter((row) => row === email)).toEqual([email])
      // The addresses never reach the log in clear text.
      expect(server.output()).not.toContain(email)
    } finally {
      await client.close()
    }
  })

  it('answers bad arguments and refused addresses with isError and the reason, storing nothing', async () => {
    const client = await connect(server)
    const before = await storedEmails(server)
    const cases: [unknown, RegExp][] = [
      [{}, /"email" is required/],
      [undefined, /"email" is required/],
      [{ email: 42 }, /"email" must be a string/],
      [{ email: `mcp.extra.${unique}@example.com`, nickname: 'Ada' }, /unexpected argument "nickname"/],
      [{ email: 'not-an-address' }, /address was refused/],
      [{ email: ` mcp.spaces.${unique}@example.com ` }, /address was refused/],
      [{ email: `${'a'.repeat(300 - '@example.com'.length)}@example.com` }, /at most 254 characters/],
    ]
    try {
      for (const [args, reason] of cases) {
        const result = await client.callTool({ name: TOOL, arguments: args as Record<string, unknown> })
        expect([args, result.isError]).toEqual([args, true])
        expect(result.structuredContent).toMatchObject({ status: 'error', message: words('error') })
        expect((result.structuredContent as { reason: string }).reason).toMatch(reason)
        expect((result.content as { text: string }[])[0]?.text).toMatch(reason)
      }
      expect(await storedEmails(server)).toEqual(before)
    } finally {
      await client.close()
    }
  })

  it('answers an unknown tool and an unknown method with JSON-RPC errors', async () => {
    const client = await connect(server)
    try {
      await expect(client.callTool({ name: 'delete_waitlist', arguments: {} })).rejects.toThrow(
        /-32602.*Unknown tool "delete_waitlist": this server has one tool, request_beta_access/,
      )
      const unknownMethod = await postMcp(
        server,
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'waitlist/drop' }),
      )
      expect(unknownMethod.status).toBe(200)
      expect(await unknownMethod.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32601, message: 'Method not found' },
      })
    } finally {
      await client.close()
    }
  })

  it('refuses malformed JSON-RPC, batches, oversized bodies and other sites with clear errors, inserting nothing', async () => {
    const before = await storedEmails(server)
    await expectJsonRpcError(await postMcp(server, '{"jsonrpc": "2.0", "method": '), 400, /Parse error/)
    await expectJsonRpcError(
      await postMcp(server, JSON.stringify({ jsonrpc: '1.0', method: 5 })),
      400,
      /not a valid JSON-RPC message/,
    )

    const batch = Array.from({ length: 100 }, (_, i) => call(i, `mcp.batch.${i}.${unique}@example.com`))
    await expectJsonRpcError(
      await postMcp(server, JSON.stringify(batch)),
      400,
      /batches are not accepted; send one JSON-RPC message per request/,
    )

    const huge = JSON.stringify(call(1, `${'a'.repeat(1024 * 1024)}@example.com`))
    // The server answers before reading the body, then drops the connection: ask for that up front.
    const close = { Connection: 'close' }
    await expectJsonRpcError(await postMcp(server, huge, close), 413, /Request body too large/)
    // The same megabyte sent chunked, with no Content-Length to judge by: counted as it streams in.
    const chunkedRequest =
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n' +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
      `${Buffer.byteLength(huge).toString(16)}\r\n${huge}\r\n0\r\n\r\n`
    const chunked = asResponse(await rawRequest(server.url, chunkedRequest))
    await expectJsonRpcError(chunked, 413, /Request body too large/)

    // A page of another site (or a rebound name for this one) is refused; so is an opaque origin.
    for (const origin of ['https://evil.example', 'http://rebound.example:3000', 'null']) {
      const foreign = await postMcp(server, JSON.stringify(call(1, `mcp.foreign.${unique}@example.com`)), {
        Origin: origin,
      })
      const body = await expectJsonRpcError(foreign, 403, /Forbidden: .*pages of its own site only/)
      expect([origin, body.error.code]).toEqual([origin, -32000])
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull()
    }
    expect(await storedEmails(server)).toEqual(before)
    const health = await fetch(`${server.url}/healthz`)
    expect(health.status).toBe(200)
  })

  it("lets the site's own pages call, with CORS for exactly that origin and the MCP headers", async () => {
    const preflight = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        Origin: SITE,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, mcp-protocol-version',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SITE)
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST')
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Protocol-Version/)
    const foreignPreflight = await fetch(`${server.url}/mcp`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(foreignPreflight.status).toBe(403)

    const listed = await postMcp(server, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      Origin: SITE,
    })
    expect(listed.status).toBe(200)
    expect(listed.headers.get('access-control-allow-origin')).toBe(SITE)
    expect(listed.headers.get('access-control-expose-headers')).toBeNull()
    // Behind the same security headers as every other answer.
    expect(listed.headers.get('x-content-type-options')).toBe('nosniff')
    expect(listed.headers.get('content-security-policy')).toContain("default-src 'self'")
    const { result } = (await listed.json()) as { result: { tools: { name: string }[] } }
    expect(result.tools.map((tool) => tool.name)).toEqual([TOOL])
  })

  it('has no event stream to GET (405) and leaves unknown paths below it 404', async () => {
    const get = await fetch(`${server.url}/mcp`, { headers: { Accept: 'text/event-stream' } })
    await expectJsonRpcError(get, 405, /send JSON-RPC messages with POST/)
    expect(get.headers.get('allow')).toBe('POST, OPTIONS')
    for (const path of ['/mcp/', '/mcp/tools', '/mcp.json']) {
      const response = await fetch(`${server.url}${path}`, { headers: { Origin: 'https://evil.example' } })
      await response.arrayBuffer()
      expect([path, response.status]).toEqual([path, 404])
      const preflight = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { Origin: SITE } })
      await preflight.arrayBuffer()
      expect([path, preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([
        path,
        404,
        null,
      ])
    }
  })

  it('counts tool calls against the per-address write limit, and nothing else the client sends', async () => {
    const client = await connect(limited)
    try {
      const outcomes: string[] = []
      for (let i = 0; i < 4; i++) {
        // Listing is a read: it never uses up the writes.
        await client.listTools()
        const email = `mcp.limit.${i}.${unique}@example.com`
        const result = await client
          .callTool({ name: TOOL, arguments: { email } })
          .then((answer) => (answer.structuredContent as { status: string }).status)
          .catch((error: Error & { code?: number }) => `${error.code} ${error.message}`)
        outcomes.push(result)
      }
      expect(outcomes.slice(0, 2)).toEqual(['submitted', 'submitted'])
      for (const refused of outcomes.slice(2)) {
        expect(refused).toMatch(/429.*Too many requests from this address: try again in \d+ seconds/)
      }
      expect(await storedEmails(limited)).toHaveLength(2)

      const raw = await postMcp(limited, JSON.stringify(call(9, `mcp.limit.raw.${unique}@example.com`)))
      const body = await expectJsonRpcError(raw, 429, /Too many requests/)
      expect((body as { id?: unknown }).id).toBe(9)
      expect(Number(raw.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await fetch(`${limited.url}/healthz`)).status).toBe(200)
    } finally {
      await client.close()
    }
  })
})
