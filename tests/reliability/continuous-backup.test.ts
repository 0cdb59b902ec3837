import { randomBytes } from 'node:crypto'
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
 * Continuous backup to a store off the machine (BACKUP_URL=file:///…, a mounted disk), through the
 * real server and CLI (issue 65, items 2-4): a base at start, the WAL as PostgreSQL archives it,
 * the erased list beside it; `restore --from file:///…` onto a new DATA_DIR brings back every
 * signup whose segment reached the store, and an erasure made after a copy stays erased when that
 * copy is restored. The 60 s bound itself is the slow suite's (tests/reliability).
 */
const KEY = randomBytes(32).toString('base64')
let store: string
let server: TestServer
const cleanups: (() => Promise<void>)[] = []

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'lab-site-store-'))
  server = await startTestServer({ env: { BACKUP_URL: `file://${store}`, BACKUP_KEY: KEY } })
})

afterAll(async () => {
  await server?.cleanup()
  for (const cleanup of cleanups) await cleanup()
  await rm(store, { recursive: true, force: true })
})

const status = async (env: Record<string, string>) => (await runCli(env, 'backup', 'status')).stdout

/** Waits until the server's backup says a piece reached the store after `after`. */
async function pieceAfter(after: string): Promise<void> {
  for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const last = /the last piece reached it at (\S+);/.exec(await status(server.env))?.[1]
    if (last && last > after) return
  }
  throw new Error(`no piece reached the store after ${after}: ${await status(server.env)}`)
}

async function restoreInto(from: string): Promise<{ stdout: string; server: TestServer }> {
  const target = await emptyDataDir()
  cleanups.push(target.cleanup)
  const env = { DATA_DIR: target.dir, BACKUP_URL: `file://${store}`, BACKUP_KEY: KEY }
  const restore = await runCli(env, 'restore', '--from', from)
  expect(restore.code, restore.stderr).toBe(0)
  const restored = await startTestServer({ dataDir: target.dir })
  cleanups.push(() => restored.cleanup())
  return { stdout: restore.stdout, server: restored }
}

describe('continuous backup to a file store', () => {
  it('keeps a base, the WAL and the erased list there, sealed, and restores the latest onto a new DATA_DIR', async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `stream${i}@example.org`)
    for (const email of emails) expect((await postWaitlist(server, { email })).status).toBe(201)
    expect((await runCli(server.env, 'remove', 'stream3@example.org')).code).toBe(0)
    // A segment ends at archive_timeout (60 s); here the test ends it now, as a busy list would.
    const switched = new Date().toISOString()
    await withServerDatabase(server, (db) => db.query('select pg_switch_wal()'))
    await pieceAfter(switched)
    await new Promise((r) => setTimeout(r, 6_000)) // the next pass takes the segment the switch ended
    const pieces = await readdir(join(store, 'wal'))
    expect(pieces.length).toBeGreaterThan(0)
    expect(await readdir(join(store, 'base'))).toEqual([
      expect.stringMatching(/Z\.json$/),
      expect.stringMatching(/Z\.tar$/),
    ])
    // Sealed: not one address readable in the store.
    const { stdout: grep } = await import('node:child_process').then(({ execFileSync }) => ({
      stdout: execFileSync('sh', ['-c', `grep -rl stream1@example.org ${store} || true`]).toString(),
    }))
    expect(grep).toBe('')

    const { stdout, server: restored } = await restoreInto(`file://${store}`)
    expect(stdout).toMatch(
      /Restored .* \(\d+ WAL segments replayed\): 29 entries, 0 team members, 0 passkeys, \d+ lines of the record, 1 erased addresses\./,
    )
    const list = (await runCli(restored.env, 'list')).stdout
    for (const email of emails.filter((email) => email !== 'stream3@example.org'))
      expect(list).toContain(email)
  })

  it('makes again an erasure made after the copy that is restored', async () => {
    const dir = join(store, '..', `${store.split('/').at(-1)}-monday`)
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    expect((await runCli(server.env, 'backup', '--to', dir)).code).toBe(0)
    const erasedAt = new Date().toISOString()
    expect((await runCli(server.env, 'remove', 'stream7@example.org')).code).toBe(0)
    await pieceAfter(erasedAt) // the erased list, kept beside the backup within a pass

    const { stdout, server: restored } = await restoreInto(dir)
    expect(stdout).toContain(
      'Erasures made after that and kept beside the backup, made again: 1 (1 entries erased).',
    )
    const shown = await runCli(restored.env, 'show', 'stream7@example.org')
    expect(shown.code).toBe(1)
    expect((await runCli(restored.env, 'suppressed')).stdout).toMatch(/\b2\b/)
    expect((await runCli(restored.env, 'audit')).stdout).toMatch(/restore {2}erasures re-applied {2}\(1\)/)
  })

  it('says BACKUP_KEY is needed to restore from the store', async () => {
    const target = await emptyDataDir()
    cleanups.push(target.cleanup)
    const refused = await runCli({ DATA_DIR: target.dir }, 'restore', '--from', `file://${store}`)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('needs BACKUP_KEY, the key it was encrypted with')
  })
})
