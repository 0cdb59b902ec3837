import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { migratedSchemaSql, SCHEMA_FILE, schemaSqlOf, staleness } from '../../harness/schema-sql'
import { migrate, readMigrations } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'

const run = promisify(execFile)

/** A migrated database with `sql` run on it, as a new migration would: the schema file's text for it. */
async function schemaAfter(sql: string): Promise<string> {
  const url = await sharedPostgresUrl()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
  return schemaSqlOf(url)
}

describe('supabase/schema.sql, the schema as the migrations leave it', () => {
  let committed: string | undefined
  let generated: string

  beforeAll(async () => {
    committed = await readFile(SCHEMA_FILE, 'utf8').catch(() => undefined)
    generated = await migratedSchemaSql()
  })
  afterAll(stopBackends)

  it('is up to date with supabase/migrations/ (else: npm run schema)', () => {
    expect(staleness(committed, generated)).toBeUndefined()
  })

  it('is what `npm run schema` writes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'schema-file-'))
    try {
      const out = join(dir, 'schema.sql')
      // The child inherits this worker's cluster (its slot, in the env); alone, it starts one of its own.
      const { stdout } = await run('npm', ['run', '--silent', 'schema', '--', '--out', out], {
        cwd: join(import.meta.dirname, '..', '..'),
      })
      expect(stdout).toMatch(/^Wrote .*schema\.sql \(migrations through \d{14}_\w+\.sql\)\.$/m)
      expect(await readFile(out, 'utf8')).toBe(generated)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('fails, naming the command and the first differing lines, once a migration changes the schema', async () => {
    const altered = await schemaAfter('alter table public.waitlist add column referrer text')
    // As a new migration would leave it, its name in the header too: the schema's change is shown first.
    const changed = altered.replace(/through \S+\.sql\./, 'through 20991231000000_referrer.sql.')
    const message = staleness(generated, changed)
    expect(message).toContain('Run `npm run schema`')
    const lines = message?.split('\n') ?? []
    const at = lines.findIndex((line) => line.startsWith('First difference at line'))
    // The new column comes after created_at, where the constraints started: first differing line.
    expect(lines[at + 1]).toMatch(/^- {5}CONSTRAINT waitlist_pkey PRIMARY KEY \(id\),$/)
    expect(lines).toContain('+     referrer text,')
    expect(staleness(undefined, generated)).toMatch(/does not exist\. Run `npm run schema`/)
    // A migration that changes no part of the schema still moves the header on.
    const renamed = generated.replace(/through \S+\.sql\./, 'through 20991231000000_rows_only.sql.')
    expect(staleness(generated, renamed)).toMatch(/at line 1 .*\n- -- The schema as .*\n/)
  })

  it('reads the same bytes from a database migrated from nothing, whatever its name and OIDs', async () => {
    const url = await sharedPostgresUrl({ migrated: false })
    const db = await openPostgres(url, 1)
    try {
      await migrate(db)
    } finally {
      await db.close()
    }
    expect(await schemaSqlOf(url)).toBe(generated)
  })

  it('shows tables, keys, checks, indexes, functions, triggers, RLS, policies and grants', async () => {
    const migrations = await readMigrations()
    const last = migrations.at(-1)
    expect(generated).toContain(`through ${last?.version}_${last?.name}.sql.`)
    for (const expected of [
      'CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA extensions;',
      'CREATE ROLE anon NOLOGIN NOINHERIT;',
      'CREATE TABLE public.waitlist (\n    id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,',
      '    email extensions.citext NOT NULL,',
      '    CONSTRAINT waitlist_email_key UNIQUE (email),',
      'REFERENCES public.waitlist(id) ON DELETE CASCADE',
      'CREATE UNLOGGED TABLE private.rate_limit_buckets (',
      'CREATE INDEX waitlist_created_at_id ON public.waitlist USING btree (created_at, id);',
      " SECURITY DEFINER\n SET search_path TO ''\n",
      'EXECUTE FUNCTION private.on_waitlist_insert();',
      'ALTER TABLE private.jwt_secret ENABLE ROW LEVEL SECURITY;',
      'CREATE POLICY "Anyone can join the waitlist" ON public.waitlist\n    AS PERMISSIVE FOR INSERT\n    TO anon, authenticated\n    WITH CHECK (true);',
      'GRANT INSERT (email) ON TABLE public.waitlist TO anon;',
      'GRANT ALL ON TABLE public.waitlist TO service_role;',
      'GRANT USAGE ON SCHEMA extensions TO anon;',
    ])
      expect(generated).toContain(expected)
    // What the extensions brought stays theirs; the owner's role, whose name is the machine's, is never named.
    expect(generated).not.toMatch(/extensions\.citext_|FUNCTION extensions\.|similarity/)
    expect(generated).not.toMatch(/\bpostgres\b|OWNER/)
    // Nothing was granted on private: anon and authenticated cannot even use the schema.
    expect(generated).not.toMatch(/ON SCHEMA private|ON TABLE private\.|ON FUNCTION private\./)
  })

  it('shows what PostgreSQL grants by default: a function nobody revoked runs for PUBLIC', async () => {
    const create = "create function private.hello() returns int language sql as 'select 1';"
    expect(await schemaAfter(create)).toContain('GRANT EXECUTE ON FUNCTION private.hello() TO PUBLIC;')
    const revoked = await schemaAfter(
      `${create} revoke all on function private.hello() from public;` +
        'grant execute on function private.hello() to service_role',
    )
    expect(revoked).toContain('GRANT EXECUTE ON FUNCTION private.hello() TO service_role;')
    expect(revoked).not.toContain('private.hello() TO PUBLIC')
  })

  it('shows the comments a migration puts on tables, columns and functions', async () => {
    const commented = await schemaAfter(
      "comment on table public.waitlist is 'One row per address';" +
        "comment on column public.waitlist.email is 'Case-insensitive, it''s unique';" +
        "comment on function private.visitors_seen(bit varying) is 'Linear counting'",
    )
    expect(commented).toMatch(
      /-- Comments\n\nCOMMENT ON COLUMN public\.waitlist\.email IS 'Case-insensitive, it''s unique';\n/,
    )
    expect(commented).toContain(
      "COMMENT ON FUNCTION private.visitors_seen(bits bit varying) IS 'Linear counting';",
    )
    expect(commented).toContain("COMMENT ON TABLE public.waitlist IS 'One row per address';")
  })

  it('shows the views, sequences, forced RLS and restrictive policies a migration adds', async () => {
    const added = await schemaAfter(
      'create sequence private.ticket_numbers start 100;' +
        'create view public.signup_days with (security_invoker = true) as ' +
        '  select created_at::date as day, count(*) as signups from public.waitlist group by 1;' +
        'alter table public.waitlist force row level security;' +
        'create policy "No blank addresses" on public.waitlist as restrictive for insert to public' +
        "  with check (email <> '')",
    )
    expect(added).toContain(
      '-- Sequences\n\nCREATE SEQUENCE private.ticket_numbers AS bigint START 100 INCREMENT 1 MINVALUE 1',
    )
    expect(added).toContain(
      '-- Views\n\nCREATE VIEW public.signup_days WITH (security_invoker=true) AS\n SELECT created_at::date AS day,',
    )
    expect(added).toContain('ALTER TABLE public.waitlist FORCE ROW LEVEL SECURITY;')
    expect(added).toContain(
      'CREATE POLICY "No blank addresses" ON public.waitlist\n    AS RESTRICTIVE FOR INSERT\n    TO PUBLIC\n' +
        "    WITH CHECK (((email)::text <> ''::text));",
    )
  })

  it('refuses to write a schema holding something it cannot show, and names it', async () => {
    const url = await sharedPostgresUrl()
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query('create aggregate private.total(bigint) (sfunc = int8pl, stype = bigint)')
    await client.end()
    await expect(schemaSqlOf(url)).rejects.toThrow(/cannot show function private\.total\(bigint\)/)
  })
})
