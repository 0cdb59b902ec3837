import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { runCli } from '../../harness/waitlist-cli'
import { migrate, readMigrations } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'

afterAll(stopBackends)

// The migration that brings statuses; a list migrated up to just before it is an older install.
const STATUSES = '20261126000000'
// The migration that brings sources and answers.
const ANSWERS = '20261130000000'

/** The tables and migrations a database holds: what a dry run must leave as it found it. */
async function schemaOf(url: string) {
  const db = await openPostgres(url, 1)
  try {
    const [row] = await db.query<{ tables: string[] | null; versions: string[] | null }>(
      `select (select array_agg(table_schema || '.' || table_name order by 1, 2)
                 from information_schema.tables
                where table_schema in ('public', 'private', 'supabase_migrations')) as tables,
              (select array_agg(version order by version)
                 from supabase_migrations.schema_migrations) as versions`,
    )
    return row
  } catch {
    // No bookkeeping table at all: a database never migrated.
    const [row] = await db.query<{ tables: string[] | null }>(
      `select array_agg(table_schema || '.' || table_name) as tables
         from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')`,
    )
    return { tables: row?.tables ?? null, versions: null }
  } finally {
    await db.close()
  }
}

// `invite --dry-run` says "Nothing was written.": not a status, not a message, not a migration, not a cluster.
describe('invite --dry-run writes nothing at all', () => {
  let scratch: string
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'lab-site-invite-dry-run-'))
  })
  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it('leaves an empty DATABASE_URL database without a single table', async () => {
    const url = await sharedPostgresUrl({ migrated: false })
    const dryRun = await runCli(
      { DATABASE_URL: url, DATA_DIR: join(scratch, 'unused') },
      'invite',
      '--next',
      '5',
      '--dry-run',
    )
    // Nobody to invite: exits 1, as the real run would (exit-status.ts).
    expect(dryRun).toMatchObject({ code: 1 })
    expect(dryRun.stdout).toContain('Dry run: 0 invitations would be queued. Nothing was written.')
    expect(await schemaOf(url)).toEqual({ tables: null, versions: null })
  })

  it('creates no embedded cluster where there is none yet', async () => {
    const dataDir = join(scratch, 'data')
    const dryRun = await runCli({ DATA_DIR: dataDir }, 'invite', 'a@example.com', '--dry-run')
    expect(dryRun).toMatchObject({ code: 1 })
    expect(dryRun.stdout).toContain('  a@example.com is not on the waitlist')
    expect(await readdir(scratch)).toEqual([])
  })

  it('reads a list whose statuses migration is pending as all waiting, and leaves it pending', async () => {
    const url = await sharedPostgresUrl({ migrated: false })
    const db = await openPostgres(url, 1)
    try {
      await migrate(
        db,
        (await readMigrations()).filter((migration) => migration.version < STATUSES),
      )
      await db.query(
        `insert into public.waitlist (email, created_at) values
           ('first@example.com', '2024-11-01T09:00:00Z'), ('second@example.com', '2024-11-02T09:00:00Z'),
           ('third@example.com', '2024-11-03T09:00:00Z')`,
      )
    } finally {
      await db.close()
    }
    const before = await schemaOf(url)
    expect(before?.versions).not.toContain(STATUSES)
    const env = { DATABASE_URL: url, DATA_DIR: join(scratch, 'unused') }
    const next = await runCli(env, 'invite', '--next', '2', '--dry-run')
    expect(next).toMatchObject({ code: 0 })
    expect(next.stdout.split('\n').slice(0, 3)).toEqual([
      'Dry run: 2 invitations would be queued. Nothing was written.',
      '  2024-11-01T09:00:00.000000Z  first@example.com  (waiting)',
      '  2024-11-02T09:00:00.000000Z  second@example.com  (waiting)',
    ])
    expect(next.stdout).toContain('To: first@example.com')
    const named = await runCli(env, 'invite', 'THIRD@example.com', 'x@example.com', '--dry-run')
    expect(named).toMatchObject({ code: 0 })
    expect(named.stdout).toContain('Dry run: 1 invitation would be queued.')
    expect(named.stdout).toContain('  x@example.com is not on the waitlist')
    expect(await schemaOf(url)).toEqual(before)
  })

  it('reads a filter by answer or source on a list from before them as matching nobody, and migrates nothing', async () => {
    const url = await sharedPostgresUrl({ migrated: false })
    const db = await openPostgres(url, 1)
    try {
      await migrate(
        db,
        (await readMigrations()).filter((migration) => migration.version < ANSWERS),
      )
      await db.query(`insert into public.waitlist (email) values ('early@example.com')`)
    } finally {
      await db.close()
    }
    const before = await schemaOf(url)
    const env = { DATABASE_URL: url, DATA_DIR: join(scratch, 'unused') }
    const filtered = await runCli(env, 'invite', '--next', '5', '--answer', 'role=Research', '--dry-run')
    expect(filtered).toMatchObject({ code: 1 })
    expect(filtered.stdout.split('\n').slice(0, 2)).toEqual([
      'Dry run: 0 invitations would be queued. Nothing was written.',
      '0 entries may be invited and match --answer role=Research; --next 5 takes the oldest.',
    ])
    const all = await runCli(env, 'invite', '--next', '5', '--domain', 'example.com', '--dry-run')
    expect(all.stdout).toContain('  early@example.com  (waiting)')
    expect(await schemaOf(url)).toEqual(before)
  })
})

// Issue 41: a first batch of 5 that all bounced paused nothing, and nothing had said it could not.
describe('invite --dry-run of a small batch', () => {
  it('says the pause judges from 20 messages on, under 20 only', async () => {
    const url = await sharedPostgresUrl()
    const db = await openPostgres(url, 1)
    try {
      await db.query(
        `insert into public.waitlist (email)
         select 'batch.' || i || '@example.com' from generate_series(1, 25) as i`,
      )
    } finally {
      await db.close()
    }
    const env = { DATABASE_URL: url, DATA_DIR: '/nonexistent-data-dir' }
    const note =
      'Sending pauses on bounces or complaints only once 20 messages are in the send-health window ' +
      '(deliveries shows it): a batch of 5 is judged with the mail sent before it, or, alone, not at all.'
    const small = await runCli(env, 'invite', '--next', '5', '--dry-run')
    expect(small).toMatchObject({ code: 0 })
    expect(small.stdout).toContain(note)
    const large = await runCli(env, 'invite', '--next', '20', '--dry-run')
    expect(large.stdout).toContain('Dry run: 20 invitations would be queued.')
    expect(large.stdout).not.toContain('Sending pauses on bounces or complaints only once')
  })
})
