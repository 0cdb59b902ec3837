import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import S3rver from 's3rver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyDataDir } from '../../harness/data-dir'
import { withServerDatabase } from '../../harness/server-database'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'

/**
 * Continuous backup to an S3-compatible store run by the test (s3rver on loopback), with the AWS
 * SDK's own settings (AWS_ENDPOINT_URL, the keys), and `restore --from s3://…` onto a new DATA_DIR.
 */
const KEY = randomBytes(32).toString('base64')
const BUCKET = 'lab-backups'
let s3dir: string
let s3: S3rver
let s3env: Record<string, string>
let server: TestServer
let restored: TestServer | undefined
const cleanups: (() => Promise<void>)[] = []

beforeAll(async () => {
  s3dir = await mkdtemp(join(tmpdir(), 'lab-site-s3rver-'))
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  })
  const { port } = await s3.run()
  s3env = {
    BACKUP_URL: `s3://${BUCKET}/lab-site`,
    BACKUP_KEY: KEY,
    AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
  }
  server = await startTestServer({ env: s3env })
})

afterAll(async () => {
  await restored?.cleanup()
  await server?.cleanup()
  for (const cleanup of cleanups) await cleanup()
  await s3?.close()
  await rm(s3dir, { recursive: true, force: true })
})

describe('continuous backup to S3', () => {
  it('keeps the base and the WAL in the bucket, and restores them onto a new DATA_DIR', {
    timeout: 180_000,
  }, async () => {
    const emails = Array.from({ length: 20 }, (_, i) => `bucket${i}@example.org`)
    for (const email of emails) expect((await postWaitlist(server, { email })).status).toBe(201)
    const switched = new Date().toISOString()
    await withServerDatabase(server, (db) => db.query('select pg_switch_wal()'))
    for (let i = 0; i < 120; i++) {
      const status = (await runCli(server.env, 'backup', 'status')).stdout
      const last = /the last piece reached it at (\S+);/.exec(status)?.[1]
      if (last && last > switched) break
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    const status = await runCli(server.env, 'backup', 'status')
    expect(status.stdout).toContain(
      `Continuous backup to s3://${BUCKET}/lab-site: the last piece reached it at`,
    )

    const target = await emptyDataDir()
    cleanups.push(target.cleanup)
    const restore = await runCli(
      { ...s3env, DATA_DIR: target.dir },
      'restore',
      '--from',
      `s3://${BUCKET}/lab-site`,
    )
    expect(restore.code, restore.stderr).toBe(0)
    expect(restore.stdout).toMatch(/: 20 entries, 0 team members/)
    restored = await startTestServer({ dataDir: target.dir })
    const list = (await runCli(restored.env, 'list')).stdout
    for (const email of emails) expect(list).toContain(email)
  })
})
