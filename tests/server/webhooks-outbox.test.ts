import { afterAll, describe, expect, it } from 'vitest'
import { BACKENDS, startServerOn, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { isPgError, type Queryable } from '../../server/db/database'
import { markImport } from '../../server/waitlist/admin/import-staging'
import { dropDeliveries } from '../../server/webhooks/webhook-events'
import { expectNoEmail, insertStatus } from '../reliability/support'
import { openBesideServer } from '../support/file-server'
import { deliveredEmails, startWebhookReceiver } from '../support/webhook-receiver'

afterAll(stopBackends)

async function sqlError(tx: Queryable, sql: string): Promise<string> {
  try {
    await tx.query(sql)
    return 'no error'
  } catch (error) {
    return isPgError(error) ? error.code : String(error)
  }
}

async function outboxCount(tx: Queryable): Promise<number> {
  const [row] = await tx.query<{ n: number }>('select count(*)::int as n from private.webhook_deliveries')
  return row?.n ?? 0
}

describe.each(BACKENDS)('the signup outbox on $name', ({ name }) => {
  it('anon cannot read or write the outbox, over REST or as the anon role in SQL', async () => {
    const receiver = await startWebhookReceiver()
    const server = await startServerOn(name, { env: { SIGNUP_WEBHOOK_URL: receiver.url } })
    try {
      const anon = { apikey: server.anonKey, Authorization: `Bearer ${server.anonKey}` }
      for (const [profile, status] of [
        ['private', 406],
        [undefined, 404],
      ] as const) {
        const headers = profile ? { ...anon, 'Accept-Profile': profile, 'Content-Profile': profile } : anon
        const read = await fetch(`${server.url}/rest/v1/webhook_deliveries?select=*`, { headers })
        expect(read.status, `GET with profile ${profile}`).toBe(status)
        const write = await fetch(`${server.url}/rest/v1/webhook_deliveries`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: '{"waitlist_id":1}',
        })
        expect(write.status, `POST with profile ${profile}`).toBe(status)
      }
      expect(await insertStatus(server, `anon.outbox.${name}@example.com`)).toBe(201)
      await receiver.waitFor(() => deliveredEmails(receiver).length === 1, 'the signup delivered')
    } finally {
      await server.stop()
      await receiver.close()
    }

    const database = await openBesideServer(server)
    try {
      for (const role of ['anon', 'authenticated'] as const) {
        await database.db.asRole({ role }, async (tx) => {
          // Each in a savepoint: after one error the transaction accepts nothing more.
          for (const statement of [
            'select * from private.webhook_deliveries',
            'select * from private.webhook_settings',
            'insert into private.webhook_deliveries (waitlist_id) values (1)',
            "update private.webhook_deliveries set status = 'delivered'",
            'delete from private.webhook_deliveries',
            'update private.webhook_settings set enabled = false',
            'select private.on_waitlist_insert()',
          ]) {
            await tx.exec('savepoint probe')
            expect(await sqlError(tx, statement), `${role}: ${statement}`).toBe('42501')
            await tx.exec('rollback to savepoint probe')
          }
        })
      }
      // Yet anon's own insert queues its delivery (the trigger runs as the outbox's owner).
      const before = await outboxCount(database.db)
      await database.db.asRole({ role: 'anon' }, (tx) =>
        tx.query('insert into public.waitlist (email) values ($1)', [`anon.trigger.${name}@example.com`]),
      )
      expect(await outboxCount(database.db)).toBe(before + 1)
    } finally {
      await database.close()
      await server.cleanup()
    }
  })

  it('imports queue nothing, removal drops deliveries, and a server without SIGNUP_WEBHOOK_URL switches the outbox off', async () => {
    const receiver = await startWebhookReceiver({ kind: 'status', status: 500 })
    const server = await startServerOn(name, { env: { SIGNUP_WEBHOOK_URL: receiver.url } })
    await server.stop()
    await receiver.close()
    let database = await openBesideServer(server)
    try {
      const db = database.db
      await db.transaction(async (tx) => {
        await markImport(tx)
        await tx.query('insert into public.waitlist (email) values ($1), ($2)', [
          'imported.one@example.com',
          'imported.two@example.com',
        ])
      })
      expect(await outboxCount(db), 'an import queues nothing').toBe(0)
      // The setting is transaction-local: the next signup is queued again.
      await db.query('insert into public.waitlist (email) values ($1)', ['Queued.One@example.com'])
      await db.query('insert into public.waitlist (email) values ($1)', ['queued.two@example.com'])
      expect(await outboxCount(db)).toBe(2)
      // An erasure request: case-insensitive, in the caller's transaction.
      expect(await db.transaction((tx) => dropDeliveries(tx, 'QUEUED.one@EXAMPLE.com'))).toBe(1)
      expect(await outboxCount(db)).toBe(1)
      // Deleting the row drops its deliveries too.
      await db.query('delete from public.waitlist where email = $1', ['queued.two@example.com'])
      expect(await outboxCount(db)).toBe(0)
    } finally {
      await database.close()
    }

    // Started without a receiver, the server switches the outbox off for this database.
    const plain = await startTestServer({
      dataDir: server.dataDir,
      env: { ...server.env, SIGNUP_WEBHOOK_URL: '' },
    })
    expect(await insertStatus(plain, `unannounced.${name}@example.com`)).toBe(201)
    await plain.stop()
    database = await openBesideServer(server)
    try {
      expect(await outboxCount(database.db), 'nothing accrues where no deliverer runs').toBe(0)
    } finally {
      await database.close()
      await server.cleanup()
    }
  })

  it('`waitlist deliveries` lists pending and failed deliveries, `--retry` sends the failed ones again', async () => {
    const receiver = await startWebhookReceiver({ kind: 'status', status: 500, body: 'receiver broken' })
    const failing = `failing.${name}@example.com`
    const pending = `pending.${name}@example.com`
    // A retry window of 300 ms: the delivery is marked failed after its second or third attempt.
    const server = await startServerOn(name, {
      env: {
        SIGNUP_WEBHOOK_URL: receiver.url,
        SIGNUP_WEBHOOK_RETRY_BASE_MS: '100',
        SIGNUP_WEBHOOK_RETRY_FOR_MS: '300',
      },
    })
    let restarted: TestServer | undefined
    try {
      expect(await insertStatus(server, failing)).toBe(201)
      const deadline = Date.now() + 20_000
      while (!/failed for good after \d+ attempts: HTTP 500: receiver broken/.test(server.output())) {
        if (Date.now() > deadline) throw new Error(`never marked failed:\n${server.output()}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await server.stop()
      const attempts = receiver.requests.length
      // A signup the stopped server never got to: queued, since notifications are still on.
      const database = await openBesideServer(server)
      await database.db.query('insert into public.waitlist (email) values ($1)', [pending])
      await database.close()

      const listed = await runCli(server.env, 'deliveries')
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.stdout).toContain('1 pending, 1 failed. Notifications are on for this database.')
      expect(listed.stdout).toMatch(
        new RegExp(`pending\\s+\\S+Z\\s+${pending.replaceAll('.', '\\.')}\\s+attempts 0`),
      )
      expect(listed.stdout).toMatch(
        new RegExp(
          `failed\\s+\\S+Z\\s+${failing.replaceAll('.', '\\.')}\\s+attempts ${attempts}\\s+last error: HTTP 500: receiver broken`,
        ),
      )
      expect(listed.stdout).toContain('npm run waitlist -- deliveries --retry')

      const retried = await runCli(server.env, 'deliveries', '--retry')
      expect(retried.code, retried.stderr).toBe(0)
      expect(retried.stdout).toContain('Re-queued 1 failed delivery')
      expect((await runCli(server.env, 'deliveries')).stdout).toContain('2 pending, 0 failed.')
      expect((await runCli(server.env, 'deliveries', '--retry')).stdout).toContain(
        'No failed deliveries to retry.',
      )

      receiver.answer({ kind: 'status', status: 204 })
      restarted = await startTestServer({
        dataDir: server.dataDir,
        env: { ...server.env, SIGNUP_WEBHOOK_RETRY_FOR_MS: '' },
      })
      await receiver.waitFor(() => deliveredEmails(receiver).length === 2, 'both delivered after the retry')
      expect(deliveredEmails(receiver)).toEqual([failing, pending].sort())
      // The server records each delivery done just after the receiver answers; stopped in between,
      // it would send that one again later (at least once), so wait for the record.
      const recorded = Date.now() + 20_000
      while (!(await runCli(server.env, 'deliveries')).stdout.includes('0 pending, 0 failed.')) {
        if (Date.now() > recorded) throw new Error(`deliveries never recorded:\n${restarted.output()}`)
      }
      await restarted.stop()
      expectNoEmail(server.output() + restarted.output())
    } finally {
      await restarted?.stop()
      await server.cleanup()
      await receiver.close()
    }
  })
})
