import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { requestAccessTool } from '../../contract/agent-tool'
import { runCli } from '../../harness/waitlist-cli'
import { answersOf } from '../../server/waitlist/entry-answers'
import { entryStatus } from '../support/entry-status'
import { fileServer } from '../support/file-server'
import { MODERN_MCP } from '../support/mcp-raw'

/**
 * The MCP tool's optional answers (issue 43, item 1) over real HTTP: the published schema lists
 * them, valid ones are stored with a new entry, and a wrong one is a tool error that stores
 * nothing at all, not even the address. Checked by the same checkAnswers the confirmation page uses,
 * which cleans them as all text from strangers (issue 48, item 2).
 */
const TOOL = requestAccessTool.name
// An answer's text, which no log line may carry.
const PRIVATE_USE = 'Benchmarking the Quetzal-9 agent on long support threads'

const live = fileServer({ env: { RATE_LIMIT_PER_MINUTE: '0' }, database: true })

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown }
interface AnyClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Result>
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown }[] }>
  close(): Promise<void>
}

/** A client pinned to 2026-07-28 (the v2 SDK), or a 2025 one (SDK v1). */
async function connect(era: '2026' | '2025' = '2026'): Promise<AnyClient> {
  const url = new URL(`${live.server.url}/mcp`)
  if (era === '2025') {
    const client = new ClientV1({ name: 'answers-2025', version: '1.0.0' })
    await client.connect(new TransportV1(url))
    return client as unknown as AnyClient
  }
  const client = new ClientV2(
    { name: 'answers', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_MCP } } },
  )
  await client.connect(new TransportV2(url))
  return client as unknown as AnyClient
}

async function callWith(args: Record<string, unknown>, era: '2026' | '2025' = '2026'): Promise<Result> {
  const client = await connect(era)
  try {
    return await client.callTool({ name: TOOL, arguments: args })
  } finally {
    await client.close()
  }
}

describe('the tool’s answers', () => {
  it('are listed in its published input schema, by question id, optional, and nothing else is taken', async () => {
    const client = await connect()
    try {
      const { tools } = await client.listTools()
      expect(tools[0]?.inputSchema).toEqual({
        type: 'object',
        properties: {
          email: expect.objectContaining({ type: 'string', format: 'email' }),
          name: {
            type: 'string',
            maxLength: 200,
            description: expect.stringContaining("the person's own name"),
          },
          role: {
            type: 'string',
            enum: ['Research', 'Engineering', 'Product', 'Founder or executive', 'Other'],
            description: `Optional: the person's own answer to the lab's question "Your role", if they gave one.`,
          },
          organisation: {
            type: 'string',
            maxLength: 100,
            description: expect.stringContaining('"Organisation"'),
          },
          use_case: {
            type: 'string',
            maxLength: 500,
            description: expect.stringContaining('"What would you use it for?"'),
          },
        },
        required: ['email'],
        additionalProperties: false,
      })
    } finally {
      await client.close()
    }
  })

  it('are stored and count as given (no confirmation, so no one else to ask), trimmed, in either protocol era', async () => {
    for (const era of ['2026', '2025'] as const) {
      const email = `mcp.answers.${era}@example.com`
      const result = await callWith(
        { email, role: 'Research', organisation: ' Acme Lab ', use_case: PRIVATE_USE },
        era,
      )
      expect([result.isError, result.structuredContent?.status]).toEqual([false, 'submitted'])
      expect(await answersOf(live.database.db, email)).toEqual({
        role: 'Research',
        organisation: 'Acme Lab',
        use_case: PRIVATE_USE,
      })
    }
    // Kept, as the owner reads them: not merely proposed, and the filters pick them.
    const shown = JSON.parse(
      (await runCli(live.server.env, 'show', 'mcp.answers.2026@example.com', '--json')).stdout,
    )
    expect([shown.answers.role, shown.proposed]).toEqual(['Research', {}])
    const picked = await runCli(live.server.env, 'list', '--answer', 'organisation=Acme Lab')
    expect(picked.stdout).toContain('mcp.answers.2025@example.com')
  })

  it('take the person’s name, kept with no confirmation to wait for, apart from the answers (issue 64)', async () => {
    const email = 'mcp.named@example.com'
    const result = await callWith({ email, name: '  Ada Lovelace ', role: 'Research' })
    expect([result.isError, result.structuredContent?.status]).toEqual([false, 'submitted'])
    expect(await answersOf(live.database.db, email)).toEqual({ role: 'Research' })
    const shown = JSON.parse((await runCli(live.server.env, 'show', email, '--json')).stdout)
    expect([shown.name, shown.proposed]).toEqual(['Ada Lovelace', {}])
    // A name alone is stored too, with no answers row.
    const alone = 'mcp.named.alone@example.com'
    expect((await callWith({ email: alone, name: 'Grace' })).structuredContent?.status).toBe('submitted')
    expect(JSON.parse((await runCli(live.server.env, 'show', alone, '--json')).stdout).name).toBe('Grace')
    expect(await answersOf(live.database.db, alone)).toBeUndefined()
  })

  it('are not stored for an address already on the list: its answers stay as they were', async () => {
    const email = 'mcp.answers.again@example.com'
    expect((await callWith({ email, role: 'Engineering' })).structuredContent?.status).toBe('submitted')
    const again = await callWith({ email: email.toUpperCase(), role: 'Other', organisation: 'Elsewhere' })
    expect([again.isError, again.structuredContent?.status]).toEqual([false, 'already_registered'])
    expect(await answersOf(live.database.db, email)).toEqual({ role: 'Engineering' })
  })

  it('leave no row when every answer is blank', async () => {
    const email = 'mcp.answers.blank@example.com'
    expect((await callWith({ email, role: '', organisation: '   ' })).structuredContent?.status).toBe(
      'submitted',
    )
    expect(await entryStatus(live.database.db, email)).toBe('waiting')
    expect(await answersOf(live.database.db, email)).toBeUndefined()
  })

  it('refuse a role outside the choices, an over-long text or a non-string as a tool error, storing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { role: 'Astronaut' },
        'Invalid arguments: "role" must be one of "Research", "Engineering", "Product", "Founder or executive", "Other". Nothing was stored.',
      ],
      [
        { organisation: 'o'.repeat(101) },
        'Invalid arguments: "organisation" must be at most 100 characters. Nothing was stored.',
      ],
      [
        { use_case: 'u'.repeat(501) },
        'Invalid arguments: "use_case" must be at most 500 characters. Nothing was stored.',
      ],
      [{ role: 42 }, 'Invalid arguments: "role" must be a string. Nothing was stored.'],
    ]
    for (const [i, [answers, reason]] of cases.entries()) {
      const email = `mcp.answers.refused.${i}@example.com`
      const result = await callWith({ email, ...answers })
      expect(result.isError).toBe(true)
      expect(result.structuredContent).toMatchObject({ status: 'error', reason })
      expect((result.content as { text: string }[])[0]?.text).toContain(reason)
      expect(await entryStatus(live.database.db, email), 'not even the address').toBeUndefined()
    }
  })

  it('refuse a control character or half a character in words, never "could not be stored"; drop format characters', async () => {
    const before = live.server.output().length
    const refused: [Record<string, unknown>, string][] = [
      [{ organisation: '\u001b[31mAcme\u0007' }, 'an invisible control character (U+001B)'],
      [{ organisation: 'Ac\u0000me' }, 'an invisible control character (U+0000)'],
      [{ use_case: 'Agents \ud800' }, 'half of a character (U+D800)'],
      [{ role: 'Research\u0007' }, 'an invisible control character (U+0007)'],
    ]
    for (const [i, [answers, what]] of refused.entries()) {
      const email = `mcp.answers.control.${i}@example.com`
      const result = await callWith({ email, ...answers })
      const [id] = Object.keys(answers)
      expect(result.isError).toBe(true)
      expect(result.structuredContent?.reason).toBe(
        `Invalid arguments: "${id}" holds ${what} that cannot be stored; type it again without it. Nothing was stored.`,
      )
      expect(await entryStatus(live.database.db, email), 'not even the address').toBeUndefined()
    }
    // A direction override or a zero-width space draws as nothing: dropped, the rest kept.
    const email = 'mcp.answers.format@example.com'
    const result = await callWith({ email, organisation: 'Acme \u202egnp.exe\u200b', role: '\u2066Research' })
    expect([result.isError, result.structuredContent?.status]).toEqual([false, 'submitted'])
    expect(await answersOf(live.database.db, email)).toEqual({
      role: 'Research',
      organisation: 'Acme gnp.exe',
    })
    const log = live.server.output().slice(before)
    expect(log).not.toContain('could not be stored')
    expect(log).not.toMatch(/request_beta_access failed|\\n\s+at /)
  })

  it('still refuses an argument that is not a question, naming the ones it takes', async () => {
    const email = 'mcp.answers.extra@example.com'
    const result = await callWith({ email, company: 'Acme' })
    expect(result.isError).toBe(true)
    expect(result.structuredContent?.reason).toBe(
      'Invalid arguments: unexpected argument "company": the tool takes only "email", "name", "role", "organisation", "use_case". Call it with {"email": "…"}.',
    )
    expect(await entryStatus(live.database.db, email)).toBeUndefined()
  })

  it('never appear in the server’s log, nor does the address', () => {
    expect(live.server.output()).not.toContain(PRIVATE_USE)
    expect(live.server.output()).not.toContain('Acme Lab')
    expect(live.server.output()).not.toContain('mcp.answers.2026@example.com')
  })
})
