import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer } from '../../harness/test-server'
import { StartupError } from '../../server/base/startup-error'
import { migrate } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'
import { healthy, insertStatus } from '../reliability/support'
import { createManagedOwner, dropApiRoles, queryRows } from './managed-owner'

/** A PostgreSQL server of the test's own, where the API roles may be created and dropped. */
export interface OwnCluster {
  adminUrl: string
  urlFor(user: string, password: string, database: string): string
  stop(): Promise<void>
}

/**
 * The managed-Postgres promise on one PostgreSQL version: an owner with CREATEROLE CREATEDB and
 * neither SUPERUSER nor BYPASSRLS starts a real server on an empty database, which migrates and
 * serves; one without CREATEROLE is told what is missing and what a DBA runs, and needs nothing
 * more once that has run. The API roles are the cluster's, so it is a cluster of its own.
 */
export function describeManagedOwner(version: string, start: () => Promise<OwnCluster>): void {
  describe(`a managed Postgres owner that is no superuser, on PostgreSQL ${version}`, () => {
    let cluster: OwnCluster
    beforeAll(async () => {
      cluster = await start()
      await dropApiRoles(cluster.adminUrl, ['postgres'])
    })
    afterAll(async () => {
      await cluster?.stop()
    })

    it('CREATEROLE CREATEDB: the server starts on an empty database, migrates and serves anon and service_role', async () => {
      const owner = await createManagedOwner(cluster.adminUrl, 'lab_owner', 'lab_db')
      const server = await startTestServer({
        env: {
          DATABASE_URL: cluster.urlFor(owner.user, owner.password, 'lab_db'),
          RATE_LIMIT_PER_MINUTE: '0',
        },
      })
      try {
        expect(server.output()).toContain('Applied migration 20261125100000_service_role_policy')
        expect(await insertStatus(server, 'managed.owner@example.com')).toBe(201)
        expect(await insertStatus(server, 'Managed.Owner@example.com')).toBe(409)
        // service_role reads over REST through its policy, as the docs give that read: it has no
        // BYPASSRLS here.
        const read = await fetch(`${server.url}/rest/v1/waitlist?select=email`, {
          headers: {
            apikey: server.serviceKey,
            Authorization: `Bearer ${server.serviceKey}`,
            Prefer: 'count=exact',
          },
        })
        expect(read.headers.get('content-range')).toBe('0-0/1')
        expect(await read.json()).toEqual([{ email: 'managed.owner@example.com' }])
        expect(await healthy(server)).toBe(true)
      } finally {
        await server.cleanup()
      }
      const roles = await queryRows<{ rolname: string; rolsuper: boolean; rolbypassrls: boolean }>(
        cluster.adminUrl,
        `select rolname, rolsuper, rolbypassrls from pg_roles
          where rolname in ('lab_owner', 'anon', 'authenticated', 'service_role') order by rolname`,
      )
      expect(roles.filter((role) => role.rolsuper || role.rolbypassrls)).toEqual([])
      expect(roles.map((role) => role.rolname)).toEqual([
        'anon',
        'authenticated',
        'lab_owner',
        'service_role',
      ])
    })

    it('no CREATEROLE and no roles: the start names the privilege and the DBA’s SQL; once run, no CREATEROLE is needed', async () => {
      await dropApiRoles(cluster.adminUrl, ['postgres', 'lab_db'])
      const owner = await createManagedOwner(cluster.adminUrl, 'plain_owner', 'plain_db', {
        createrole: false,
      })
      const db = await openPostgres(cluster.urlFor(owner.user, owner.password, 'plain_db'), 2)
      try {
        const refusal = await migrate(db).catch((error: unknown) => error)
        expect(refusal).toBeInstanceOf(StartupError)
        const message = (refusal as Error).message
        expect(message).toMatch(/"plain_owner" .* lacks the CREATEROLE privilege/)
        const sql = message.split('\n').filter((line) => line.startsWith('  '))
        expect(sql).toEqual([
          '  CREATE ROLE anon NOLOGIN NOINHERIT;',
          '  CREATE ROLE authenticated NOLOGIN NOINHERIT;',
          '  CREATE ROLE service_role NOLOGIN NOINHERIT;',
          '  GRANT anon, authenticated, service_role TO "plain_owner";',
        ])
        expect(
          await queryRows(cluster.adminUrl, 'select 1 from pg_roles where rolname = $1', ['anon']),
        ).toEqual([])
        // The DBA runs exactly what the message says, as the provider's administrator.
        await queryRows(cluster.adminUrl, sql.join('\n'))
        expect(await migrate(db)).toContain('20261122000000_waitlist')
        await db.runAsRole(
          { role: 'anon' },
          { sql: 'insert into public.waitlist (email) values ($1)', params: ['dba@example.com'] },
        )
        const read = await db.runAsRole(
          { role: 'service_role' },
          { sql: 'select email::text from public.waitlist', params: [] },
        )
        expect(read.rows).toEqual([{ email: 'dba@example.com' }])
      } finally {
        await db.close()
      }
    })
  })
}
