import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../server/db/database'
import { migrate } from '../../server/db/migrate'
import { openPglite } from '../../server/db/pglite-driver'
import { openPostgres } from '../../server/db/postgres-driver'
import { freshDataDir } from '../support/data-dir'
import {
  createDatabase,
  findPostgresBin,
  type PostgresCluster,
  startPostgres,
} from '../support/postgres-cluster'

// The browser's own `type="email"` check decides these; the database must agree with it.
const ACCEPTED = [
  'a@b',
  'first.last+tag@example.co.uk',
  "o'brien@example.com",
  'x@xn--bcher-kva.example',
  `${'a'.repeat(64)}@example.com`,
  `${'a'.repeat(248)}@b.com`, // exactly 254 characters
  `x@${'d'.repeat(63)}.example`, // a 63-character label, the most a label may have
  "a!#$%&'*+/=?^_`{|}~-@example.org",
]
const REFUSED = [
  'plain',
  '@example.com',
  'a@',
  'a b@example.com',
  'a"b@example.com',
  '<a>@example.com',
  'a@exa mple.com',
  'a@-example.com',
  'a@example-.com',
  'a@example..com',
  'a@example.com.',
  'a@.example.com',
  `x@${'d'.repeat(64)}.example`,
  `${'a'.repeat(249)}@b.com`, // 255 characters
  'a@b\tc.com',
  'ünï@example.com',
  'a@exämple.com',
  ' a@example.com',
  'a@example.com ',
  'a@example.com\n',
  `${'a'.repeat(250)}@b.co`,
]

async function withAnon(db: Database, email: string): Promise<string> {
  try {
    await db.asRole({ role: 'anon' }, (tx) =>
      tx.query('insert into public.waitlist (email) values ($1)', [email]),
    )
    return 'ok'
  } catch (error) {
    return (error as { code: string }).code
  }
}

describe.each([
  { name: 'pglite', skip: undefined as string | undefined },
  { name: 'postgres', skip: findPostgresBin() ? undefined : 'no PostgreSQL server binaries' },
])('the schema on $name', ({ name, skip }) => {
  let db: Database
  let cleanup: () => Promise<void>
  let cluster: PostgresCluster | undefined

  beforeAll(async () => {
    if (skip) return console.warn(`SKIPPED postgres schema tests: ${skip}`)
    if (name === 'pglite') {
      const dir = await freshDataDir()
      db = await openPglite(`${dir.dir}/pglite`)
      cleanup = dir.cleanup
    } else {
      cluster = await startPostgres()
      db = await openPostgres(await createDatabase(cluster, 'schema_test'))
      await migrate(db)
      cleanup = async () => {}
    }
  })
  afterAll(async () => {
    await db?.close()
    await cluster?.stop()
    await cleanup?.()
  })

  it.skipIf(skip)('applies migrations once: running them again is a no-op', async () => {
    const [{ rows: before } = { rows: 0 }] = await db.query<{ rows: number }>(
      'select count(*)::int as rows from supabase_migrations.schema_migrations',
    )
    expect(before).toBeGreaterThan(0)
    expect(await migrate(db)).toEqual([])
    expect(await migrate(db)).toEqual([])
    const [after] = await db.query<{ rows: number }>(
      'select count(*)::int as rows from supabase_migrations.schema_migrations',
    )
    expect(after?.rows).toBe(before)
  })

  it.skipIf(skip)('accepts what the browser accepts and refuses the rest', async () => {
    for (const email of ACCEPTED) expect(await withAnon(db, email), email).toBe('ok')
    for (const email of REFUSED) expect(await withAnon(db, email), JSON.stringify(email)).toMatch(/^23514$/)
    // Postgres text cannot hold NUL at all: refused before any check, as 22021.
    expect(await withAnon(db, 'a\u0000@example.com')).toBe('22021')
  })

  it.skipIf(skip)('treats letter case as the same address', async () => {
    expect(await withAnon(db, 'Mixed@Case.example')).toBe('ok')
    expect(await withAnon(db, 'mixed@case.EXAMPLE')).toBe('23505')
  })

  it.skipIf(skip)('gives anon insert on email only: no select, update, delete or other columns', async () => {
    const attempts = [
      'select email from public.waitlist',
      "update public.waitlist set email = 'z@z.z'",
      'delete from public.waitlist',
      "insert into public.waitlist (email, created_at) values ('c@c.c', now())",
      'truncate public.waitlist',
    ]
    for (const sql of attempts) {
      const code = await db
        .asRole({ role: 'anon' }, (tx) => tx.query(sql))
        .then(() => 'ok')
        .catch((error: { code: string }) => error.code)
      expect(code, sql).toBe('42501')
    }
    const rows = await db.asRole({ role: 'service_role' }, (tx) =>
      tx.query('select email from public.waitlist'),
    )
    expect(rows.length).toBeGreaterThan(0)
  })
})
