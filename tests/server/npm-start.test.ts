import { execFile } from 'node:child_process'
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { processMemory } from '../../bench/process-memory'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { ROOT } from '../../server/base/paths'
import { modernEnvelope, modernHeaders, postMcp } from '../support/mcp-raw'

const BUNDLES = join(ROOT, 'node_modules', '.cache', 'lab-site-server')
const LAST = join(BUNDLES, 'last-bundle.json')
const bundles = async () => (await readdir(BUNDLES)).filter((name) => /^server-[0-9a-f]{16}$/.test(name))

// `npm start` runs build/start.mjs: the server bundled by esbuild, then plain Node, without tsx.
describe('npm start', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ bundled: true })
  }, 60_000)
  afterAll(() => server?.cleanup())

  it('serves the page and the API from the bundle', async () => {
    expect((await fetch(`${server.url}/`)).status).toBe(200)
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    const inserted = await fetch(`${server.url}/rest/v1/waitlist`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'bundled@example.com' }),
    })
    expect(inserted.status).toBe(201)
  })

  it("holds less memory than the same server through tsx (121 MiB idle; the bundle's 82)", async () => {
    // Idle, as it settles: on a busy machine the start's garbage can wait a few seconds for V8's collection.
    await expect
      .poll(() => processMemory(server.process.pid ?? 0).rssMiB, { timeout: 10_000, interval: 250 })
      .toBeLessThan(105)
  })

  // After the memory check: the MCP SDK's chunk loads with the first /mcp message.
  it('answers /mcp from the bundle in both protocol eras (the v2 SDK bundled with esbuild)', async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) => postMcp(server.url, body, headers)
    const modern = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernEnvelope('bundle-test') } },
      modernHeaders('tools/list'),
    )
    expect(modern).toMatchObject({ status: 200, body: { result: { resultType: 'complete', tools: [{}] } } })
    const legacy = await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bundle-test', version: '1' },
      },
    })
    expect(legacy).toMatchObject({ status: 200, body: { result: { protocolVersion: '2025-11-25' } } })
  })

  it('makes the same bundle from the same sources: one folder, named by its content', async () => {
    const before = await bundles()
    expect(before.length).toBeGreaterThan(0)
    await promisify(execFile)(process.execPath, ['build/start.mjs', '--bundle-only'], { cwd: ROOT })
    expect(await bundles()).toEqual(before)
  })

  it('runs the last bundle without esbuild while its inputs are unchanged, and bundles again when one changes', async () => {
    const startAndCheck = async () => {
      const again = await startTestServer({ bundled: true })
      try {
        expect((await fetch(`${again.url}/healthz`)).status).toBe(200)
      } finally {
        await again.cleanup()
      }
    }
    const last = JSON.parse(await readFile(LAST, 'utf8')) as { inputs: string[]; fingerprint: string }
    expect(last.inputs).toContain('server/boot/main.ts')
    const { mtimeMs } = await stat(LAST)
    await startAndCheck()
    // Not rewritten: this start never bundled.
    expect((await stat(LAST)).mtimeMs).toBe(mtimeMs)

    // As if an input had changed since: the next start bundles, and records the inputs as they are.
    await writeFile(LAST, JSON.stringify({ ...last, fingerprint: 'stale' }))
    await startAndCheck()
    expect(JSON.parse(await readFile(LAST, 'utf8'))).toMatchObject({ fingerprint: last.fingerprint })
  })
})
