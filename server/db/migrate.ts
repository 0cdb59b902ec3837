import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { MIGRATIONS_DIR } from '../base/paths'
import { checkApiRolesCanBeMade, joinApiRoles } from './api-roles'
import type { Database } from './database'

export { MIGRATIONS_DIR }

// The Supabase CLI's own bookkeeping table, so a database migrated here and one migrated by
// `supabase db push` agree on what has been applied.
const BOOKKEEPING = `
  create schema if not exists supabase_migrations;
  create table if not exists supabase_migrations.schema_migrations (
    version text primary key,
    statements text[],
    name text
  );`

// Any constant works; it only has to be the same for every server sharing one Postgres.
const MIGRATION_LOCK_KEY = 7_305_871_113

// PostgreSQL 14 and older let every role create tables and functions in `public`, where one can
// stand in for another role's objects (CVE-2018-1058); 15 and later no longer grant it. Taken back
// where we apply the migrations, not in one: on hosted Supabase only the schema's owner may, and
// Supabase sets its own grants. Checked first, so a database that already refuses it is not written.
const REVOKE_PUBLIC_CREATE = `
  do $$
  begin
    if has_schema_privilege('public', 'public', 'CREATE') then
      revoke create on schema public from public;
    end if;
  exception when insufficient_privilege then
    raise warning 'Every role may still create objects in schema public: only its owner can revoke that';
  end
  $$`

export interface MigrationFile {
  version: string
  name: string
  sql: string
}

export async function readMigrations(directory = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const files = (await readdir(directory)).filter((file) => /^\d+_.+\.sql$/.test(file)).sort()
  return Promise.all(
    files.map(async (file) => {
      const [, version = '', name = ''] = /^(\d+)_(.+)\.sql$/.exec(file) ?? []
      return { version, name, sql: await readFile(join(directory, file), 'utf8') }
    }),
  )
}

/** Applies, in order and each in its own transaction, every migration not yet recorded. Returns those applied. */
export async function migrate(db: Database, migrations?: MigrationFile[]): Promise<string[]> {
  const pending = migrations ?? (await readMigrations())
  await checkApiRolesCanBeMade(db)
  const applied: string[] = []
  for (const migration of pending) {
    const ran = await db.transaction(async (tx) => {
      // Two servers starting together on one Postgres must not both run a migration.
      await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
      await tx.exec(BOOKKEEPING)
      const done = await tx.query('select 1 from supabase_migrations.schema_migrations where version = $1', [
        migration.version,
      ])
      if (done.length > 0) return false
      await tx.exec(migration.sql)
      await tx.query(
        'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
        [migration.version, migration.name, [migration.sql]],
      )
      return true
    })
    if (ran) applied.push(`${migration.version}_${migration.name}`)
  }
  await db.transaction(async (tx) => {
    // Under the same lock: two servers changing one schema's grants at once would collide.
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
    await tx.exec(REVOKE_PUBLIC_CREATE)
    await joinApiRoles(tx)
  })
  return applied
}
