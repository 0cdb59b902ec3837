import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import type { Database } from '../../server/db/database'
import { migrate } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'
import { insertStatement } from '../../server/waitlist/signup'
import { ACCEPTED_EMAILS as ACCEPTED, REFUSED_EMAILS as REFUSED } from '../support/email-corpus'

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

// The embedded cluster and DATABASE_URL run the same PostgreSQL 18 and the same driver: one suite.
describe('the schema on PostgreSQL 18, built from the migrations', () => {
  let db: Database

  beforeAll(async () => {
    db = await openPostgres(await sharedPostgresUrl({ migrated: false }))
    await migrate(db)
  })
  /** How many stored addresses start with `prefix`. */
  async function rowsStartingWith(prefix: string): Promise<number | undefined> {
    const [row] = await db.query<{ n: number }>(
      'select count(*)::int as n from public.waitlist where starts_with(email::text, $1)',
      [prefix],
    )
    return row?.n
  }

  afterAll(async () => {
    await db?.close()
    await stopBackends()
  })

  it('applies migrations once: running them again is a no-op', async () => {
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

  it('accepts what the browser accepts and refuses the rest', async () => {
    for (const email of ACCEPTED) expect(await withAnon(db, email), email).toBe('ok')
    for (const email of REFUSED) expect(await withAnon(db, email), JSON.stringify(email)).toMatch(/^23514$/)
    // Postgres text cannot hold NUL at all: refused before any check, as 22021.
    expect(await withAnon(db, 'a\u0000@example.com')).toBe('22021')
  })

  it('treats letter case as the same address', async () => {
    expect(await withAnon(db, 'Mixed@Case.example')).toBe('ok')
    expect(await withAnon(db, 'mixed@case.EXAMPLE')).toBe('23505')
  })

  it('gives anon insert on email only: no select, update, delete or other columns', async () => {
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

  it('runs a statement in one round trip under the role, for that statement only', async () => {
    const {
      rows: [inside],
    } = await db.runAsRole<{ role: string; claims: string }>(
      { role: 'anon', sub: "o'brien" },
      { sql: "select current_user as role, current_setting('request.jwt.claims') as claims", params: [] },
    )
    expect(inside?.role).toBe('anon')
    expect(JSON.parse(inside?.claims ?? '{}')).toEqual({ role: 'anon', sub: "o'brien" })
    const [after] = await db.query<{ role: string }>('select current_user as role')
    expect(after?.role).not.toBe('anon')
    // What anon may not do is refused, as in a transaction of its own.
    const refused = await db
      .runAsRole({ role: 'anon' }, { sql: 'select email from public.waitlist', params: [] })
      .then(() => 'ok')
      .catch((error: { code: string }) => error.code)
    expect(refused).toBe('42501')
  })

  it('a failing statement leaves nothing behind: the role switch and the write roll back', async () => {
    const count = () => rowsStartingWith('rollback-')
    const before = await count()
    const failed = await db
      .runAsRole(
        { role: 'service_role' },
        {
          sql: "insert into public.waitlist (email) values ('rollback-1@example.com'), ($1)",
          params: ['not-an-address'],
        },
      )
      .catch((error: { code: string }) => error.code)
    expect(failed).toBe('23514')
    expect(await count()).toBe(before)
  })

  it('commits a transaction when its function returns, and rolls it all back on a throw', async () => {
    const count = () => rowsStartingWith('tx-')
    const before = await count()
    const thrown = await db
      .transaction(async (tx) => {
        await tx.query("insert into public.waitlist (email) values ('tx-1@example.com')")
        throw new Error('changed my mind')
      })
      .catch((error: Error) => error.message)
    expect(thrown).toBe('changed my mind')
    expect(await count()).toBe(before)
    await db.transaction(async (tx) => {
      await tx.query("insert into public.waitlist (email) values ('tx-2@example.com')")
      // Its own writes are visible inside, with the statement's count.
      expect(
        (await tx.run("update public.waitlist set email = email where email like 'tx-%'")).affected,
      ).toBe(1)
    })
    expect(await count()).toBe((before ?? 0) + 1)
  })

  it('prepares the page insert once per connection, except behind a pooler (?pgbouncer=true)', async () => {
    const insert = (target: Database, email: string) =>
      target.runAsRole({ role: 'anon' }, insertStatement(['email'], [{ email }], undefined))
    const prepared = async (target: Database) =>
      (await target.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements'))[0]?.n
    const url = await sharedPostgresUrl()
    // One connection each, so the count is that connection's own.
    const direct = await openPostgres(url, 1)
    const pooled = await openPostgres(`${url}?pgbouncer=true`, 1)
    try {
      await insert(direct, 'prepared.1@example.com')
      await insert(direct, 'prepared.2@example.com')
      expect(await prepared(direct)).toBe(2) // the role settings and the insert, once each
      await insert(pooled, 'pooled.1@example.com')
      expect(await prepared(pooled)).toBe(0)
      expect(
        await insert(pooled, 'POOLED.1@example.com').catch((error: { code: string }) => error.code),
      ).toBe('23505')
    } finally {
      await direct.close()
      await pooled.close()
    }
  })

  it('gives back exactly the text and arrays it was sent, whatever they hold', async () => {
    const nasty = [
      "o'brien",
      'back\\slash',
      '$1 and $2',
      '"quoted"',
      "'); drop table waitlist; --",
      'ü — 🙂',
      'line\nbreak',
    ]
    for (const value of nasty) {
      const {
        rows: [row],
      } = await db.runAsRole<{ value: string }>(
        { role: 'anon' },
        { sql: 'select $1::text as value', params: [value] },
      )
      expect(row?.value, value).toBe(value)
    }
    const {
      rows: [row],
    } = await db.runAsRole<{ value: string[] }>(
      { role: 'anon' },
      { sql: 'select $1::text[] as value', params: [nasty] },
    )
    expect(row?.value).toEqual(nasty)
  })
})
