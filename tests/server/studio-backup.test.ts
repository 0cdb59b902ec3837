import { randomBytes } from 'node:crypto'
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withServerDatabase } from '../../harness/server-database'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import type { BackupLine } from '../../server/admin/runtime'
import { backupLineOf } from '../../server/backup/backup-health'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'

/**
 * The studio header's backup line (issue 65, item 2), read through the studio's API as its page
 * reads it (GET /api/backup, a viewer's route): beside a server with BACKUP_URL, when the last
 * piece reached the store; a failing store, loudly; a studio whose env has no BACKUP_URL, a warning.
 * And what the person's own page says of backups while the server keeps one (item 6).
 */
describe('the studio says where the backup stands', () => {
  let store: string
  let server: TestServer
  const studios: StudioProcess[] = []
  const readLine = async (studio: StudioProcess): Promise<BackupLine> => {
    const response = await fetch(`${studio.origin}/api/backup`, {
      headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
    })
    expect(response.status).toBe(200)
    return (await response.json()) as BackupLine
  }
  const until = async (studio: StudioProcess, ready: (line: BackupLine) => boolean) => {
    let line = await readLine(studio)
    for (const end = Date.now() + 30_000; !ready(line) && Date.now() < end; line = await readLine(studio))
      await new Promise((resolve) => setTimeout(resolve, 250))
    return line
  }

  beforeAll(async () => {
    store = await mkdtemp(join(tmpdir(), 'lab-site-studio-store-'))
    const BACKUP_KEY = randomBytes(32).toString('base64')
    server = await startTestServer({ env: { BACKUP_URL: `file://${store}`, BACKUP_KEY } })
  })
  afterAll(async () => {
    for (const studio of studios) await studio.stop()
    await server?.cleanup()
    await rm(store, { recursive: true, force: true })
    await rm(`${store}.moved`, { recursive: true, force: true })
  })

  it('says how long ago the last piece reached the store, then that it fails, and why', async () => {
    const studio = await startStudioProcess(server.env)
    studios.push(studio)
    const backedUp = await until(studio, (line) => line.level === 'ok')
    expect(backedUp).toMatchObject({ level: 'ok', store: `file://${store}` })
    expect(backedUp.line).toMatch(new RegExp(`^Backed up \\d+ s ago to file://${store}\\.$`))
    // `backup status` says it in the same words, then the exact times.
    const said = await runCli(server.env, 'backup', 'status')
    expect(said.code).toBe(0)
    expect(said.stdout).toMatch(
      new RegExp(`^Backed up \\d+ s ago to file://${store}\\.\\n.*the last piece reached it at`),
    )

    // The store's disk gone (a file where its directory was): the next segment cannot reach it.
    await rename(store, `${store}.moved`)
    await writeFile(store, 'not a directory')
    expect((await postWaitlist(server, { email: 'after-the-disk@example.org' })).status).toBe(201)
    await withServerDatabase(server, (db) => db.query('select pg_switch_wal()'))
    const failing = await until(studio, (line) => line.failingSince !== undefined)
    expect(failing.level).toBe('warning')
    expect((await runCli(server.env, 'backup', 'status')).code).toBe(1)
    expect(failing.line).toMatch(
      new RegExp(`^Backup failing for \\d+ s: nothing new reaches file://${store} \\(.+\\)\\. Signups go on`),
    )
  })

  it('tells the person on their own page how long backups keep their data, and that a restore erases again', async () => {
    const email = 'kept-in-backups@example.org'
    expect((await postWaitlist(server, { email })).status).toBe(201)
    const token = sealAddress(linkKeys(server.secret).yourData, email)
    const page = await (await fetch(`${server.url}/your-data?t=${token}`)).text()
    // The retention (14 days by default) and the day a prune may wait for the next base.
    expect(page).toContain(
      'Backups keep an encrypted copy of the list for up to 15 days; then your data is gone from them too. ' +
        'If a backup is ever restored, your erasure is made again.',
    )
  })

  it('warns when BACKUP_URL is not set where the studio runs', async () => {
    const studio = await startStudioProcess({ ...server.env, BACKUP_URL: '' })
    studios.push(studio)
    expect(await readLine(studio)).toEqual({
      level: 'warning',
      line: 'No continuous backup: BACKUP_URL is not set, so a lost disk loses the list (docs/deploy.md).',
    })
  })

  it('warns when no server has checked for minutes, calls a quiet list quiet, and leaves DATABASE_URL to its provider', () => {
    const now = new Date()
    const ago = (ms: number) => new Date(now.getTime() - ms).toISOString()
    const env = { DATA_DIR: '.', BACKUP_URL: 's3://bucket/lab/' }
    const status = { store: 's3://bucket/lab', lastPieceAt: ago(3 * 3_600_000), checkedAt: ago(4_000) }
    expect(backupLineOf(env, status, now)).toMatchObject({
      level: 'ok',
      line: 'Backed up 3 h ago to s3://bucket/lab; nothing new to copy since.',
    })
    expect(backupLineOf(env, { ...status, checkedAt: ago(10 * 60_000) }, now)).toMatchObject({
      level: 'warning',
      line: 'Backed up 3 h ago to s3://bucket/lab, and no server has checked for 10 min: is it running?',
    })
    // What the server wrote of another store says nothing of this one.
    expect(backupLineOf({ ...env, BACKUP_URL: 's3://other/lab' }, status, now)).toMatchObject({
      level: 'warning',
      line: 'Nothing has reached s3://other/lab yet: is the server running?',
    })
    expect(backupLineOf({ ...env, DATABASE_URL: 'postgres://db/lab' }, status, now).level).toBe('elsewhere')
  })
})
