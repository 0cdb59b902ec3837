import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { runCli } from '../../harness/waitlist-cli'
import { openPostgres } from '../../server/db/postgres-driver'

afterAll(stopBackends)

// `import --dry-run` says "Nothing was written.": not a row, not a migration, not a cluster.
describe('import --dry-run writes nothing at all', () => {
  let scratch: string
  let csv: string
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'lab-site-dry-run-'))
    csv = join(scratch, 'waitlist.csv')
    await writeFile(
      csv,
      'email,created_at\r\na@example.com,2024-11-01T09:00:00Z\r\nb@example.com,2024-11-02T09:00:00Z\r\n',
    )
  })
  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it('leaves an empty DATABASE_URL database without a single table', async () => {
    const url = await sharedPostgresUrl({ migrated: false })
    const dryRun = await runCli(
      { DATABASE_URL: url, DATA_DIR: join(scratch, 'unused') },
      'import',
      csv,
      '--dry-run',
    )
    expect(dryRun).toMatchObject({ code: 0 })
    expect(dryRun.stdout).toContain(
      '2 would be added, 0 are already on the list and would be skipped. Nothing was written.',
    )
    const db = await openPostgres(url, 1)
    try {
      const schemas = await db.query<{ name: string }>(
        "select nspname as name from pg_namespace where nspname in ('supabase_migrations', 'private', 'extensions')",
      )
      expect(schemas).toEqual([])
      expect(await db.query("select to_regclass('public.waitlist') as t")).toEqual([{ t: null }])
    } finally {
      await db.close()
    }
  })

  it('creates no embedded cluster where there is none yet', async () => {
    const dataDir = join(scratch, 'data')
    const dryRun = await runCli({ DATA_DIR: dataDir }, 'import', csv, '--dry-run')
    expect(dryRun).toMatchObject({ code: 0 })
    expect(dryRun.stdout).toContain('2 would be added')
    expect(await readdir(scratch)).toEqual(['waitlist.csv'])
  })
})
