import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { migrate } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'

afterAll(stopBackends)

/** What a role with no grants of its own gets when it tries to create a table in public. */
async function createAsStranger(url: string, role: string): Promise<string> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('begin')
    await client.query(`set local role "${role}"`)
    await client.query(`create table public.planted_by_${role} (id int)`)
    await client.query('rollback')
    return 'created'
  } catch (error) {
    await client.query('rollback')
    return (error as { code?: string }).code ?? String(error)
  } finally {
    await client.end()
  }
}

// PostgreSQL 15 and later no longer let every role create objects in public; 14 and older do,
// which a DATABASE_URL may well be. The test cluster is 18, so PostgreSQL 14's default is put back.
describe('schema public after the server applies the migrations', () => {
  it('refuses CREATE to a role without grants, even where PUBLIC had it (PostgreSQL 14 and older)', async () => {
    const url = await sharedPostgresUrl({ migrated: false })
    const stranger = `stranger_${new URL(url).pathname.slice(1)}`
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query('grant create on schema public to public')
    await admin.query(`create role "${stranger}" nologin`)
    await admin.end()
    try {
      expect(await createAsStranger(url, stranger)).toBe('created')
      const db = await openPostgres(url, 2)
      try {
        await migrate(db)
        // A second start finds nothing left to take back, and says nothing.
        await migrate(db)
      } finally {
        await db.close()
      }
      expect(await createAsStranger(url, stranger)).toBe('42501')
    } finally {
      const cleanup = new pg.Client({ connectionString: url })
      await cleanup.connect()
      await cleanup.query(`drop role "${stranger}"`).catch(() => {})
      await cleanup.end()
    }
  })
})
