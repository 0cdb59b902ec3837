import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freshDataDir } from '../../harness/data-dir'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { expectNoEmail, healthy, insert, insertStatus, rowCount } from './support'

/**
 * A small file system of its own to fill up: a tmpfs, which needs root to mount. 176 MB: the cluster
 * and its WAL, plus room for PostgreSQL's binaries (about 61 MB) when the checkout is private and the
 * server stages them under DATA_DIR.
 */
function mountSmallDisk(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=176m,mode=755', 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const mountPoint = await mkdtemp(join(tmpdir(), 'lab-site-small-disk-'))
const mounted = mountSmallDisk(mountPoint)
if (!mounted)
  console.warn('SKIPPED disk-full test: mounting a tmpfs needs root (run the suite as root, as CI does)')

describe.runIf(mounted)('a disk that fills up mid-insert', () => {
  let server: TestServer | undefined
  afterAll(async () => {
    await server?.stop()
    execFileSync('umount', [mountPoint])
    await rm(mountPoint, { recursive: true, force: true })
  })

  it('refuses inserts with a PostgREST 503 and keeps nothing partial, then recovers when space returns', async () => {
    const template = await freshDataDir()
    execFileSync('cp', ['-a', `${template.dir}/.`, mountPoint])
    await template.cleanup()
    server = await startTestServer({ dataDir: mountPoint })
    expect(await insertStatus(server, 'before.full@example.com')).toBe(201)
    const before = await rowCount(server)

    // Fill the disk to the last byte.
    const filler = join(mountPoint, 'filler')
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' })
    } catch {
      // dd stops with ENOSPC: that is the point.
    }
    const long = 'x'.repeat(200)
    const refused: number[] = []
    for (let n = 0; n < 300 && refused.length < 20; n++) {
      const response = await insert(server, { email: `full.${n}.${long}@example.com` })
      if (response.status === 201) continue
      expect(response.status).toBe(503)
      expect(await response.json()).toMatchObject({ code: '53100', hint: 'Check free disk space.' })
      refused.push(n)
    }
    expect(refused.length, 'inserts refused once the disk is full').toBeGreaterThan(0)
    const whileFull = await rowCount(server)

    await rm(filler)
    expect(await healthy(server)).toBe(true)
    expect(await insertStatus(server, 'after.full@example.com')).toBe(201)
    // Every insert either got its 201 and its row, or an error and nothing.
    expect(await rowCount(server)).toBe(whileFull + 1)
    expect(whileFull).toBeGreaterThanOrEqual(before)
    expectNoEmail(server.output())
  })
})
