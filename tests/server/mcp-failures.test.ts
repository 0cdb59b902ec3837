import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { outcomeMessages } from '../../contract/waitlist-outcome'
import { loadApiKeys } from '../../server/auth/api-keys'
import type { Logger } from '../../server/base/log'
import type { Database, PgError } from '../../server/db/database'
import { createApp } from '../../server/http/app'
import { stubSite } from '../support/stub-site'

/**
 * What the database says decides the tool's answer. Here the database is a stand-in that fails on
 * cue, driven in-process through the SDK's own client (its fetch is the app's), so failures no
 * real database will produce on demand still get checked: a lost connection, each constraint.
 */
const ERROR_WORDS = `${outcomeMessages.error.title} ${outcomeMessages.error.description}`

async function clientFor(runAsRole: Database['runAsRole']) {
  const logged: string[] = []
  const log: Logger = {
    info: () => {},
    error: (message, error) => logged.push(`${message} ${String(error)}`),
  }
  const db = { kind: 'postgres', runAsRole, query: async () => [] } as unknown as Database
  const keys = await loadApiKeys({
    jwtSecret: 'x'.repeat(40),
    dataDir: '/nonexistent',
    databaseUrl: undefined,
  })
  const app = createApp({ db, keys, schema: new Map(), site: stubSite, log })
  const client = new Client({ name: 'failure-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: (url, init) => Promise.resolve(app.request(String(url), init)),
  })
  await client.connect(transport)
  return { client, logged }
}

const pgError = (code: string, message: string): PgError => Object.assign(new Error(message), { code })

async function callWith(failure: unknown) {
  const { client, logged } = await clientFor(async () => {
    throw failure
  })
  const result = await client.callTool({
    name: requestAccessTool.name,
    arguments: { email: 'someone@example.com' },
  })
  await client.close()
  return { result, logged }
}

/** The app with no database behind it and no port: for what /mcp refuses before any query. */
async function appWithoutDatabase() {
  const keys = await loadApiKeys({
    jwtSecret: 'x'.repeat(40),
    dataDir: '/nonexistent',
    databaseUrl: undefined,
  })
  const db = { kind: 'postgres' } as unknown as Database
  const log: Logger = { info: () => {}, error: () => {} }
  return createApp({ db, keys, schema: new Map(), site: stubSite, log })
}

describe('request_beta_access when the database says no', () => {
  it('a lost database is a tool result with isError and a clear reason, logged without the address', async () => {
    const { result, logged } = await callWith(new Error('connect ECONNREFUSED 127.0.0.1:5432'))
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        status: 'error',
        message: ERROR_WORDS,
        reason: 'The request could not be stored just now; try again in a moment.',
      },
    })
    expect(logged).toHaveLength(1)
    expect(logged[0]).toContain('ECONNREFUSED')
  })

  it('a refused address (each check constraint, not null) is isError with the rule, and is not logged', async () => {
    for (const code of ['23514', '23502']) {
      const { result, logged } = await callWith(pgError(code, 'new row violates check constraint'))
      expect([code, result.isError]).toEqual([code, true])
      expect((result.structuredContent as { reason: string }).reason).toMatch(/^The address was refused/)
      expect(logged).toEqual([])
    }
  })

  it('the unique violation is already_registered, not an error', async () => {
    const { result } = await callWith(pgError('23505', 'duplicate key value violates unique constraint'))
    expect(result).toMatchObject({ isError: false, structuredContent: { status: 'already_registered' } })
  })

  it('arguments that are not an object at all get a JSON-RPC invalid-params error, not a 500', async () => {
    const { client } = await clientFor(async () => ({ rows: [], affected: 1 }))
    for (const args of ['someone@example.com', ['someone@example.com'], 42]) {
      await expect(
        client.callTool({ name: requestAccessTool.name, arguments: args as never }),
      ).rejects.toThrow(/-32602: Invalid params: "arguments" must be an object; tools\/call takes/)
    }
    await client.close()
  })

  it('a tool name that is not a string, or no params at all, gets the same clear invalid-params error', async () => {
    const app = await appWithoutDatabase()
    for (const [params, message] of [
      [{ name: 5, arguments: {} }, /the tool's "name" must be a string/],
      [undefined, /^Invalid params: tools\/call takes/],
    ] as const) {
      const response = await app.request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params }),
      })
      expect(response.status).toBe(200)
      const body = (await response.json()) as { id: number; error: { code: number; message: string } }
      expect([body.id, body.error.code]).toEqual([3, -32602])
      expect(body.error.message).toMatch(message)
    }
  })

  it('no site origin configured (an app without a port): any page origin is refused', async () => {
    const app = await appWithoutDatabase()
    const response = await app.request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { Origin: 'http://127.0.0.1', 'Content-Type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(403)
  })
})
