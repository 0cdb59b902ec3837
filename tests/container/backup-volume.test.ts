import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildImage,
  containerEngine,
  engineRun,
  engineTry,
  removeAll,
  runArgs,
  volumeDir,
  waitForHealth,
} from '../../harness/container-engine'
import { freePort } from '../../harness/postgres-cluster'
import { ROOT } from '../../server/base/paths'
import { insertStatus } from '../reliability/support'

/**
 * The image carries what backup and restore need (issue 65, item 5): a site on one volume with a
 * disk mounted at /backup (continuous backup there, and `backup --to` a copy), then `restore` in a
 * one-off container onto a new volume, and a site started on it holds every signup. Built as
 * image.test.ts builds it; the engine's layer cache makes the second build short.
 */
const { engine, reason } = containerEngine()
if (!engine) console.warn(`Skipping the container backup tests: ${reason}.`)

const IMAGE = `localhost/lab-site-backup-test:${process.pid}`
const KEY = randomBytes(32).toString('base64')
const EMAILS = Array.from({ length: 20 }, (_, i) => `volume${i}@example.org`)

describe.skipIf(!engine)('backup and restore in the container image', () => {
  const run = (args: string[], timeoutMs?: number) => engineRun(engine as string, args, { timeoutMs })
  const containers: string[] = []
  let work: string
  let backup: string
  let site: { name: string; url: string }

  /**
   * A site container on `data`, with the backup disk at /backup; the first keeps its continuous
   * backup there (a restored one does not: two clusters' WAL in one store would mix).
   */
  async function startSite(name: string, data: string, continuous = false) {
    const port = await freePort()
    containers.push(name)
    await engineTry(engine as string, ['rm', '-f', name])
    const backs = { BACKUP_URL: 'file:///backup/store', BACKUP_KEY: KEY }
    const env = { RATE_LIMIT_PER_MINUTE: '0', ...(continuous ? backs : {}) }
    await run(runArgs({ image: IMAGE, name, data, port, env, volumes: [`${backup}:/backup`] }))
    await waitForHealth(`http://127.0.0.1:${port}`)
    return { name, url: `http://127.0.0.1:${port}` }
  }

  /** `waitlist restore …` in a one-off container on a new volume, as the deploy guide walks it. */
  async function restoreInto(data: string, from: string) {
    const env = ['-e', 'BACKUP_URL=file:///backup/store', '-e', `BACKUP_KEY=${KEY}`]
    const args = ['run', '--rm', '--read-only', '--tmpfs', '/tmp', '-v', `${data}:/data`]
    return run(
      [...args, '-v', `${backup}:/backup`, ...env, IMAGE, 'waitlist', 'restore', '--from', from],
      300_000,
    )
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'lab-site-container-backup-'))
    backup = await volumeDir(work, 'backup')
    await buildImage(engine as string, IMAGE, ROOT)
    site = await startSite(`lab-site-backup-${process.pid}`, await volumeDir(work, 'first'), true)
    const printed = await run(['exec', site.name, 'waitlist', 'keys'])
    const [anonKey, serviceKey] = printed.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g) ?? []
    const target = { url: site.url, anonKey: anonKey ?? '', serviceKey: serviceKey ?? '' }
    for (const email of EMAILS) expect(await insertStatus(target, email)).toBe(201)
  }, 20 * 60_000)

  afterAll(() => removeAll(engine as string, containers, IMAGE, work), 120_000)

  it('backs up to the mounted disk while it serves, and restores that copy onto a new volume', async () => {
    const said = await run(['exec', site.name, 'waitlist', 'backup', '--to', '/backup/copy'])
    expect(said).toMatch(/^Backed up to \/backup\/copy \(/m)
    const data = await volumeDir(work, 'from-copy')
    expect(await restoreInto(data, '/backup/copy')).toMatch(/Restored \/data to .*: 20 entries/)
    const restored = await startSite(`lab-site-backup-copy-${process.pid}`, data)
    expect((await run(['exec', restored.name, 'waitlist', 'count'])).trim()).toBe(String(EMAILS.length))
    await run(['rm', '-f', restored.name])
  })

  it('keeps a continuous backup on the disk, and restores it onto a new volume to its last segment', async () => {
    // archive_timeout (60 s) ends the segment holding the signups, and the next pass uploads it.
    const wal = join(backup, 'store', 'wal')
    for (const end = Date.now() + 120_000; Date.now() < end; await sleep(1_000))
      if ((await readdir(wal).catch(() => [])).length > 0) break
    const data = await volumeDir(work, 'from-store')
    const said = await restoreInto(data, 'file:///backup/store')
    expect(said).toMatch(/Restored \/data to the last segment archived .*: 20 entries/)
    const restored = await startSite(`lab-site-backup-store-${process.pid}`, data)
    expect((await run(['exec', restored.name, 'waitlist', 'count'])).trim()).toBe(String(EMAILS.length))
  })
})
