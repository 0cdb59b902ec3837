import { describe, expect, it } from 'vitest'
import { oneLineErrors } from '../../server/http/mcp/one-line-errors'

/** The rewrite behind /mcp's short errors, on answers the SDK could give (mcp-eras.test.ts sends real ones). */
const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    headers: { 'Content-Type': 'application/json', ...headers },
  })

describe('one line for an MCP error', () => {
  it('leaves results, short errors and other answers as they are, byte for byte', async () => {
    const result =
      '{"result":{"content":[{"type":"text","text":"a\\nb"}],"structuredContent":{"status":"error"}},"jsonrpc":"2.0","id":1}'
    expect(await (await oneLineErrors(json(result))).text()).toBe(result)
    const short = {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32601, message: 'Method not found', data: { x: 1 } },
    }
    expect(await (await oneLineErrors(json(short))).json()).toEqual(short)
    const accepted = new Response(null, { status: 202 })
    expect(await oneLineErrors(accepted)).toBe(accepted)
  })

  it('turns a schema report into invalid params naming at most three paths', async () => {
    const issues = ['a', 'b', 'c', 'd'].map((key) => ({
      code: 'invalid_type',
      path: ['params', key],
      message: `Invalid input: ${key} bad`,
    }))
    const answer = await oneLineErrors(
      json(
        { jsonrpc: '2.0', id: 3, error: { code: -32603, message: JSON.stringify(issues, null, 2) } },
        { 'Content-Length': '9999' },
      ),
    )
    expect(answer.headers.get('content-length')).toBeNull()
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32602,
        message: 'Invalid params: params.a: a bad; params.b: b bad; params.c: c bad (and 1 more)',
      },
    })
  })

  it('keeps the code and the first line of any other long message', async () => {
    const message = `Something failed\n    at handler (/app/server.mjs:1:1)\n${'x'.repeat(500)}`
    const answer = await oneLineErrors(json({ jsonrpc: '2.0', id: null, error: { code: -32603, message } }))
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Something failed' },
    })
  })
})
