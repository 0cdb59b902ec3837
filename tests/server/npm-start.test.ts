import { execFile } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { processMemory } from '../../bench/process-memory'
import { ROOT } from '../../server/boot/paths'
import { startTestServer, type TestServer } from '../support/test-server'

const BUNDLES = join(ROOT, 'node_modules', '.cache', 'lab-site-server')
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

  it("holds less memory than the same server through tsx (121 MiB idle; the bundle's 82)", () => {
    expect(processMemory(server.process.pid ?? 0).rssMiB).toBeLessThan(105)
  })

  it('makes the same bundle from the same sources: one folder, named by its content', async () => {
    const before = await bundles()
    expect(before.length).toBeGreaterThan(0)
    await promisify(execFile)(process.execPath, ['build/start.mjs', '--bundle-only'], { cwd: ROOT })
    expect(await bundles()).toEqual(before)
  })
})
