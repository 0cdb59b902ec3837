import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyDataDir } from '../../harness/data-dir'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'

/**
 * `backup --to DIR` while signups go on, and `restore --from DIR` onto a new DATA_DIR, through the
 * real CLI and servers (issue 65, items 1 and 3): every signup acknowledged before the backup began
 * is back, with the team, the tags and notes, the record and the erased list; a DATA_DIR that holds
 * a list is refused and left as it was.
 */
let server: TestServer
let restored: TestServer | undefined
let backupParent: string
const cleanups: (() => Promise<void>)[] = []

beforeAll(async () => {
  server = await startTestServer()
  backupParent = await mkdtemp(join(tmpdir(), 'lab-site-backup-'))
})

afterAll(async () => {
  await restored?.cleanup()
  await server?.cleanup()
  for (const cleanup of cleanups) await cleanup()
  await rm(backupParent, { recursive: true, force: true })
})

const signUp = async (email: string) => (await postWaitlist(server, { email })).status

describe('backup and restore of the embedded cluster', () => {
  it('copies everything while signups go on, and restores it onto a new DATA_DIR', async () => {
    const before = Array.from({ length: 20 }, (_, i) => `before${i}@example.org`)
    for (const email of before) expect(await signUp(email)).toBe(201)
    expect((await runCli(server.env, 'team', 'add', 'ada@example.org', '--role', 'owner')).code).toBe(0)
    expect((await runCli(server.env, 'tag', 'before1@example.org', 'shortlist')).code).toBe(0)
    expect((await runCli(server.env, 'note', 'before1@example.org', 'met at the meetup')).code).toBe(0)
    expect((await runCli(server.env, 'remove', 'before2@example.org')).code).toBe(0)

    // Signups keep arriving, each acknowledged, while the backup runs.
    let streaming = true
    const during: string[] = []
    const stream = (async () => {
      for (let i = 0; streaming; i++) {
        const email = `during${i}@example.org`
        if ((await signUp(email)) === 201) during.push(email)
      }
    })()
    const dir = join(backupParent, 'monday')
    const backup = await runCli(server.env, 'backup', '--to', dir)
    streaming = false
    await stream
    expect(backup.code, backup.stderr).toBe(0)
    expect(backup.stdout).toMatch(/^Backed up to .*monday \([\d.]+ MiB, \d+ WAL segments\), as of \S+Z\.$/m)
    const held =
      /It holds at least ([\d,]+) entries, 1 team members, 0 passkeys, ([\d,]+) lines of the record, 1 erased addresses \(/.exec(
        backup.stdout,
      )
    expect(held, backup.stdout).not.toBeNull()
    const heldEntries = Number(held?.[1]?.replaceAll(',', ''))
    expect(heldEntries).toBeGreaterThanOrEqual(19)
    expect(heldEntries).toBeLessThanOrEqual(19 + during.length)
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['backup.json', 'base', 'wal', 'secrets']))

    // A second backup into a used directory is refused.
    const again = await runCli(server.env, 'backup', '--to', dir)
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('is not empty')

    // The machine is lost; a new DATA_DIR is restored from the copy.
    const target = await emptyDataDir()
    cleanups.push(target.cleanup)
    const restore = await runCli({ DATA_DIR: target.dir }, 'restore', '--from', dir)
    expect(restore.code, restore.stderr).toBe(0)
    const back =
      /: ([\d,]+) entries, 1 team members, 0 passkeys, \d+ lines of the record, 1 erased addresses\./.exec(
        restore.stdout,
      )
    expect(back, restore.stdout).not.toBeNull()
    const backEntries = Number(back?.[1]?.replaceAll(',', ''))
    expect(backEntries).toBeGreaterThanOrEqual(heldEntries)
    expect(backEntries).toBeLessThanOrEqual(19 + during.length)
    // Every signup acknowledged before the backup began is back.

    restored = await startTestServer({ dataDir: target.dir })
    const count = Number((await runCli(restored.env, 'count')).stdout.trim())
    expect(count).toBe(backEntries)
    const list = (await runCli(restored.env, 'list')).stdout
    for (const email of before.filter((email) => email !== 'before2@example.org'))
      expect(list).toContain(email)
    expect(list).not.toContain('before2@example.org')
    const shown = JSON.parse((await runCli(restored.env, 'show', 'before1@example.org', '--json')).stdout)
    expect([shown.tags, shown.note]).toEqual([['shortlist'], 'met at the meetup'])
    expect((await runCli(restored.env, 'suppressed')).stdout).toMatch(/\b1\b/)
    expect((await runCli(restored.env, 'team', 'list')).stdout).toContain('ada@example.org')
    expect((await runCli(restored.env, 'audit')).stdout).toMatch(/cli:\S+ {2}remove {2}\(1\)/)
    // The restored list takes signups again, with the same keys (the JWT secret came back too).
    expect(restored.anonKey).toBe(server.anonKey)
    expect((await postWaitlist(restored, { email: 'after@example.org' })).status).toBe(201)
  })

  it('refuses to restore into a DATA_DIR that holds a list, and changes nothing', async () => {
    const dir = join(backupParent, 'tuesday')
    expect((await runCli(server.env, 'backup', '--to', dir)).code).toBe(0)
    const count = (await runCli(server.env, 'count')).stdout
    const refused = await runCli(server.env, 'restore', '--from', dir)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(
      'already holds a list: restore only fills an empty DATA_DIR, and changed nothing',
    )
    expect((await runCli(server.env, 'count')).stdout).toBe(count)
  })

  it('names a directory that holds no finished backup', async () => {
    const dir = join(backupParent, 'cut-short')
    await rm(dir, { recursive: true, force: true })
    await writeFile(join(backupParent, 'placeholder'), '')
    const target = await emptyDataDir()
    cleanups.push(target.cleanup)
    const refused = await runCli({ DATA_DIR: target.dir }, 'restore', '--from', backupParent)
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('holds no finished backup (no backup.json)')
  })
})
