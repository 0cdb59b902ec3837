import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, stopBackends } from '../../harness/backends'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { deliveredEmails, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'
import { insertStatus } from './support'

afterAll(stopBackends)

const SIGNUPS = 40
const SHARED_SECRET = 'notify-scale-out-secret-'.padEnd(48, 'x')

// Two processes on one database need a database that two processes can open: the DATABASE_URL
// backend. The embedded one belongs to the one server that holds its data dir.
describe('signup notifications from two servers on one Postgres (postgres backend only: two processes cannot share the embedded database)', () => {
  const servers: TestServer[] = []
  let receiver: WebhookReceiver
  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    // Slow answers, so both servers have deliveries in flight at the same time.
    receiver.delayMs = 150
    const url = await sharedPostgresUrl()
    const env = {
      DATABASE_URL: url,
      JWT_SECRET: SHARED_SECRET,
      SIGNUP_WEBHOOK_URL: receiver.url,
      SIGNUP_WEBHOOK_RETRY_BASE_MS: '50',
      SIGNUP_WEBHOOK_TIMEOUT_MS: '2000',
    }
    servers.push(...(await Promise.all([startTestServer({ env }), startTestServer({ env })])))
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.cleanup()))
    await receiver?.close()
  })

  it('every signup delivered, no delivery ever sent twice at once, through failures and retries', async () => {
    const [a, b] = servers as [TestServer, TestServer]
    // First a receiver that fails, so every delivery is retried, by whichever server claims it.
    receiver.answer({ kind: 'status', status: 503 })
    const emails = Array.from({ length: SIGNUPS }, (_, n) => `scale.notify.${n}@example.com`)
    const statuses = await Promise.all(emails.map((email, n) => insertStatus(n % 2 ? a : b, email)))
    expect(statuses.every((status) => status === 201)).toBe(true)
    await receiver.waitFor(
      () => new Set(receiver.requests.map((request) => request.id)).size === SIGNUPS,
      'a first attempt for every signup',
    )
    await receiver.waitFor(() => receiver.requests.length >= 3 * SIGNUPS, 'retries')
    receiver.answer({ kind: 'status', status: 204 })
    await receiver.waitFor(
      () => deliveredEmails(receiver).length === SIGNUPS,
      'every signup delivered',
      60_000,
    )

    expect(deliveredEmails(receiver)).toEqual([...emails].sort())
    expect(receiver.maxConcurrentPerId(), 'requests for one delivery in flight at once').toBe(1)
    // Each server sends at most 4 at a time.
    expect(receiver.maxConcurrent()).toBeLessThanOrEqual(8)
    expect(receiver.maxConcurrent(), 'both servers sending side by side').toBeGreaterThan(1)
    // Both servers took part (each logs the deliveries it made).
    for (const server of servers)
      expect(server.output()).toMatch(/Signup notification msg_\S+ (delivered|attempt)/)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const okPerId = new Map<string, number>()
    for (const { id } of receiver.delivered()) okPerId.set(id, (okPerId.get(id) ?? 0) + 1)
    expect(Math.max(...okPerId.values()), 'a delivered message is not sent again').toBe(1)
  })
})
