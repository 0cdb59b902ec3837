import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyDataDir } from '../../harness/data-dir'
import { withServerDatabase } from '../../harness/server-database'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'

/**
 * `restore --at TIME` (issue 65, item 3): point-in-time recovery of the embedded cluster from the
 * continuous backup's store, through the real server and CLI. Signups A, a moment T, signups B;
 * restored at T onto a new DATA_DIR, A is back and B is not, and an erasure made after T (kept in
 * the store's erased list) is made again. A time before the oldest base, or after the newest WAL,
 * is refused with the reason, and leaves the DATA_DIR without a list.
 */
const KEY = randomBytes(32).toString('base64')
const A = Array.from({ length: 12 }, (_, i) => `before${i}@example.org`)
const B = Array.from({ length: 12 }, (_, i) => `after${i}@example.org`)
let store: string
let server: TestServer
let moment: string
let beforeBase: string
const cleanups: (() => Promise<void>)[] = []

const pitrPause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'lab-site-pitr-store-'))
  beforeBase = new Date(Date.now() - 60_000).toISOString()
  server = await startTestServer({ env: { BACKUP_URL: `file://${store}`, BACKUP_KEY: KEY } })
  // The base the server takes at start: A comes after it, so its WAL holds A, T and B.
  for (let waited = 0; !(await readdir(join(store, 'base')).catch(() => [])).length; waited += 250) {
    if (waited > 60_000) throw new Error('no base backup reached the store')
    await pitrPause(250)
  }
  for (const email of A) expect((await postWaitlist(server, { email })).status).toBe(201)
  await pitrPause(1_100)
  moment = new Date().toISOString()
  await pitrPause(1_100)
  for (const email of B) expect((await postWaitlist(server, { email })).status).toBe(201)
  expect((await runCli(server.env, 'remove', A[0] ?? '')).code).toBe(0)
  // The segment holding B ends now (a busy list's would within archive_timeout's 60 s)…
  const wal = join(store, 'wal')
  const pieces = (await readdir(wal).catch(() => [])).length
  await withServerDatabase(server, (db) => db.query('select pg_switch_wal()'))
  // …and reaches the store at the next pass, with the erased list.
  for (let waited = 0; (await readdir(wal).catch(() => [])).length <= pieces; waited += 250) {
    if (waited > 30_000) throw new Error('the switched segment never reached the store')
    await pitrPause(250)
  }
  await pitrPause(6_000) // the erased list, written in a pass of its own after the remove
}, 180_000)

afterAll(async () => {
  await server?.cleanup()
  for (const cleanup of cleanups) await cleanup()
  await rm(store, { recursive: true, force: true })
})

async function restoreAtMoment(at: string) {
  const target = await emptyDataDir()
  cleanups.push(target.cleanup)
  const env = { DATA_DIR: target.dir, BACKUP_URL: `file://${store}`, BACKUP_KEY: KEY }
  return { env, ...(await runCli(env, 'restore', '--from', `file://${store}`, '--at', at)) }
}

describe('restore --at TIME from the continuous backup', () => {
  it('brings back what was there at TIME and nothing written after, and erases again who erased since', async () => {
    const restore = await restoreAtMoment(moment)
    expect(restore.code, restore.stderr).toBe(0)
    expect(restore.stdout).toContain(`to ${moment} (the last commit by then), from the base of `)
    expect(restore.stdout).toContain('Erasures made after that and kept beside the backup, made again: 1')
    const restored = await startTestServer({ dataDir: restore.env.DATA_DIR })
    cleanups.push(() => restored.cleanup())
    const list = (await runCli(restored.env, 'list')).stdout
    for (const email of A.slice(1)) expect(list).toContain(email)
    for (const email of [A[0] ?? '', ...B]) expect(list).not.toContain(email)
    // A new timeline: the restored list takes signups, and a restart is an ordinary start.
    expect((await postWaitlist(restored, { email: 'new@example.org' })).status).toBe(201)
    await restored.stop()
    const again = await startTestServer({ dataDir: restore.env.DATA_DIR })
    cleanups.push(() => again.cleanup())
    expect((await runCli(again.env, 'count')).stdout.trim()).toBe(String(A.length))
  })

  it('refuses a time before the oldest base, one after the newest WAL, and one with no zone', async () => {
    const early = await restoreAtMoment(beforeBase)
    expect(early.code).toBe(2)
    expect(early.stderr).toContain('is before the oldest base backup')
    const late = await restoreAtMoment(new Date().toISOString())
    expect(late.code, late.stderr).toBe(2)
    expect(late.stderr).toContain('is after the newest WAL in the store')
    expect(existsSync(join(late.env.DATA_DIR, 'postgres')), 'no cluster left').toBe(false)
    const zoneless = await restoreAtMoment(moment.slice(0, 19))
    expect(zoneless.code).toBe(2)
    expect(zoneless.stderr).toContain('give it in ISO 8601 with its zone')
  })

  it('says --at is not available with DATABASE_URL', async () => {
    const refused = await runCli(
      { DATABASE_URL: 'postgres://owner@127.0.0.1:1/lab' },
      'restore',
      '--from',
      `file://${store}`,
      '--at',
      moment,
    )
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--at is not available with DATABASE_URL')
  })
})
