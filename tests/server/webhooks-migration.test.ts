import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { migrate } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'
import { WEBHOOK_EVENTS } from '../../server/webhooks/delivery-queue'
import { dropDeliveries, setWebhookEvents } from '../../server/webhooks/webhook-events'

afterAll(stopBackends)

// On hosted Supabase migrations run as `postgres`, which is not a superuser. The outbox's trigger
// function then runs as that role too, so this checks the migrations and the SECURITY DEFINER path
// as a plain owner, in an empty database of the tests' own cluster.
describe('the outbox migration as a non-superuser owner, as on hosted Supabase (postgres backend only)', () => {
  it('applies, and anon signups still queue their delivery', async () => {
    const adminUrl = await sharedPostgresUrl({ migrated: false })
    const name = new URL(adminUrl).pathname.slice(1)
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    const owner = `owner_${name}`
    // Supabase's API roles exist before any migration runs (service_role's BYPASSRLS needs a superuser).
    for (const [role, options] of [
      ['anon', 'nologin noinherit'],
      ['authenticated', 'nologin noinherit'],
      ['service_role', 'nologin noinherit bypassrls'],
    ]) {
      await admin.query(
        `do $$ begin if not exists (select 1 from pg_roles where rolname = '${role}') then create role ${role} ${options}; end if; end $$`,
      )
    }
    // The cluster wants a password; the owner gets the superuser's, so the URL only changes its user.
    const password = decodeURIComponent(new URL(adminUrl).password).replaceAll("'", "''")
    await admin.query(`create role "${owner}" login createrole nosuperuser password '${password}'`)
    // As Supabase's `postgres`: a member of the API roles, so it can act as them (PostgREST's way).
    await admin.query(`grant anon, authenticated, service_role to "${owner}"`)
    await admin.query(`alter database "${name}" owner to "${owner}"`)
    await admin.query(`alter schema public owner to "${owner}"`)
    await admin.end()

    const url = new URL(adminUrl)
    url.username = owner
    const db = await openPostgres(url.toString(), 2)
    try {
      const [role] = await db.query<{ rolsuper: boolean }>(
        'select rolsuper from pg_roles where rolname = current_user',
      )
      expect(role?.rolsuper).toBe(false)
      expect(await migrate(db)).toContain('20261123000000_signup_outbox')
      await setWebhookEvents(db, WEBHOOK_EVENTS)
      await db.runAsRole(
        { role: 'anon' },
        {
          sql: 'insert into public.waitlist (email) values ($1)',
          params: ['supabase.like@example.com'],
        },
      )
      const [queued] = await db.query<{ n: number }>(
        'select count(*)::int as n from private.webhook_deliveries',
      )
      expect(queued?.n).toBe(1)
      expect(await db.transaction((tx) => dropDeliveries(tx, 'Supabase.Like@example.com'))).toBe(1)
    } finally {
      await db.close()
    }
  })
})
