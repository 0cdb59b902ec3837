import { afterAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { type OpenedDatabase, openDatabase } from '../../server/db/open-database'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

/**
 * Issue 61, item 6: an `entry.erased` delivery keeps the erased address only while it may still be
 * delivered. On real servers, a real HTTP receiver, the owner's CLI, with the retry window
 * shortened through SIGNUP_WEBHOOK_RETRY_FOR_MS as an owner would set it.
 */
const WINDOW = { SIGNUP_WEBHOOK_EVENTS: 'entry.erased', SIGNUP_WEBHOOK_RETRY_BASE_MS: '100' }

const started: TestServer[] = []
const opened: OpenedDatabase[] = []
const receivers: WebhookReceiver[] = []
afterAll(async () => {
  for (const database of opened) await database.close()
  // The last first: a later server may run on an earlier one's data dir.
  for (const server of started.reverse()) await server.cleanup()
  for (const receiver of receivers) await receiver.close()
})

async function serve(env: Record<string, string>, dataDir?: string): Promise<TestServer> {
  const server = await startTestServer({ env, dataDir })
  started.push(server)
  return server
}

async function databaseOf(server: TestServer): Promise<OpenedDatabase> {
  const database = await openDatabase({ dataDir: server.dataDir, purpose: 'test', besideServer: true })
  opened.push(database)
  return database
}

/** The entry.erased deliveries, as the table holds them. */
const erasedDeliveries = (database: OpenedDatabase) =>
  database.db.query<{ status: string; erased_email: string | null; last_error: string | null }>(
    `select status, erased_email, last_error from private.webhook_deliveries where event = 'entry.erased'`,
  )

describe('an entry.erased delivery that is never made', () => {
  it('forgets the address when it ends failed (a receiver answering 500); --retry leaves it', async () => {
    const receiver = await startWebhookReceiver({ kind: 'status', status: 500, body: 'receiver broken' })
    receivers.push(receiver)
    const email = 'erased.failed@example.com'
    const server = await serve({
      ...WINDOW,
      SIGNUP_WEBHOOK_URL: receiver.url,
      SIGNUP_WEBHOOK_RETRY_FOR_MS: '300',
    })
    const database = await databaseOf(server)
    expect((await postWaitlist(server, { email })).status).toBe(201)
    expect((await runCli(server.env, 'remove', email)).code).toBe(0)

    await expect
      .poll(async () => (await erasedDeliveries(database)).map((row) => row.status), {
        timeout: 20_000,
      })
      .toEqual(['failed'])
    // It was tried with the address, and answered 500 each time.
    expect(receiver.requests.length).toBeGreaterThan(0)
    expect(receiver.requests.every((request) => request.body.includes(email))).toBe(true)
    expect(await erasedDeliveries(database)).toEqual([
      { status: 'failed', erased_email: null, last_error: 'HTTP 500: receiver broken' },
    ])
    // Logged just after the failure is recorded.
    await expect
      .poll(() => server.output())
      .toMatch(
        /Webhook entry\.erased msg_\S+ failed for good after \d+ attempts: HTTP 500: receiver broken \(its address is forgotten: erase that person from the receiver by hand\)/,
      )

    const listed = await runCli(server.env, 'deliveries')
    expect(listed.stdout).toMatch(/failed\s+\S+Z\s+\(address forgotten\)\s+entry\.erased\s+attempts \d+/)
    expect(listed.stdout).toContain('A failed entry.erased keeps no address and is not sent again')
    expect(listed.stdout).not.toContain('deliveries --retry')
    expect((await runCli(server.env, 'deliveries', '--retry')).stdout).toContain(
      'No failed deliveries to retry.',
    )
    expect((await erasedDeliveries(database)).map((row) => row.status)).toEqual(['failed'])
  })

  it('forgets the address once it is pending past its retry window with no server sending it, at the next start', async () => {
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    const email = 'erased.pending@example.com'
    // A server that sends entry.erased switches the outbox on for the database, then stops.
    const first = await serve({ ...WINDOW, SIGNUP_WEBHOOK_URL: receiver.url })
    expect((await postWaitlist(first, { email })).status).toBe(201)
    await first.stop()
    // Erased while no server runs: queued, with the address, for a server that never comes.
    expect((await runCli(first.env, 'remove', email)).code).toBe(0)
    const database = await databaseOf(first)
    expect(await erasedDeliveries(database)).toEqual([
      { status: 'pending', erased_email: email, last_error: null },
    ])
    await database.close()
    opened.pop()
    await new Promise((resolve) => setTimeout(resolve, 500))

    // The next server sends no webhooks at all; its window is 300 ms, so this one is past it.
    const next = await serve({ SIGNUP_WEBHOOK_RETRY_FOR_MS: '300' }, first.dataDir)
    const after = await databaseOf(next)
    expect(await erasedDeliveries(after)).toEqual([
      {
        status: 'failed',
        erased_email: null,
        last_error: 'not delivered within its retry window; the address is forgotten',
      },
    ])
    expect(receiver.requests).toEqual([])
    expect(next.output()).toContain('1 entry.erased delivery was not made within the retry window')
  })
})
