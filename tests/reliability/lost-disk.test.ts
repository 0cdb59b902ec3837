import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyDataDir } from '../../harness/data-dir'
import { postmasterPid, startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'

/**
 * A lost machine loses at most the last minute (issue 65): continuous backup to a store off the
 * machine (BACKUP_URL=file:///…), 100 acknowledged signups, a minute later every process killed
 * with SIGKILL and the data directory deleted, then `restore --from` the store onto a new DATA_DIR:
 * all 100 are back. Nothing here ends a WAL segment by hand: archive_timeout (60 s) does.
 */
const KEY = randomBytes(32).toString('hex')
let store: string
let server: TestServer
let restored: TestServer | undefined
const cleanups: (() => Promise<void>)[] = []

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'lab-site-store-'))
  server = await startTestServer({ env: { BACKUP_URL: `file://${store}`, BACKUP_KEY: KEY } })
})

afterAll(async () => {
  await restored?.cleanup()
  await server?.cleanup()
  for (const cleanup of cleanups) await cleanup()
  await rm(store, { recursive: true, force: true })
})

describe('a lost disk, a minute after the last signup', () => {
  it('restores every acknowledged signup from the store', { timeout: 240_000 }, async () => {
    const emails = Array.from({ length: 100 }, (_, i) => `kept${i}@example.org`)
    for (const email of emails) expect((await postWaitlist(server, { email })).status).toBe(201)
    // archive_timeout (60 s) ends the segment; the server's next pass (5 s) takes it off the machine.
    await new Promise((resolve) => setTimeout(resolve, 70_000))

    const postmaster = await postmasterPid(server.dataDir)
    await server.killGroup()
    if (postmaster) process.kill(-postmaster, 'SIGKILL')
    await rm(server.dataDir, { recursive: true, force: true })

    const target = await emptyDataDir()
    cleanups.push(target.cleanup)
    const env = { DATA_DIR: target.dir, BACKUP_URL: `file://${store}`, BACKUP_KEY: KEY }
    const restore = await runCli(env, 'restore', '--from', `file://${store}`)
    expect(restore.code, restore.stderr).toBe(0)
    expect(restore.stdout).toMatch(/: 100 entries, 0 team members/)
    restored = await startTestServer({ dataDir: target.dir })
    const list = (await runCli(restored.env, 'list')).stdout
    for (const email of emails) expect(list).toContain(email)
  })
})
