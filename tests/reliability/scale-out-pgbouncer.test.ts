import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DebianCluster,
  type PgBouncer,
  startDebianCluster,
  startPgBouncer,
} from '../support/debian-postgres'
import { createManagedOwner } from '../support/managed-owner'
import { startTestServer, type TestServer } from '../support/test-server'
import { deliveredEmails, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'
import { insertStatus, pool, storedEmails, tally } from './support'

const SECRET = 'pgbouncer-scale-out-secret-'.padEnd(48, 'x')
const LIMIT = { perMinute: 10, burst: 5 }
const LOAD = 1800
const CLIENTS = 30
/** Sent before the third server is killed. */
const KILL_AFTER = 500
/** The most deliveries one server has in flight at once, so the most a kill -9 can leave unrecorded. */
const SENDS_PER_SERVER = 4

/** Each request of the load from an address of its own: the load is many visitors, not one. */
const visitor = (n: number) => ({ 'X-Forwarded-For': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` })

/**
 * The growth path as a lab would take it: Debian's PostgreSQL, PgBouncer in transaction mode in
 * front, an owner that is no superuser (CREATEROLE CREATEDB), three servers started at the same
 * moment on the empty database through `?pgbouncer=true`.
 */
describe("three servers through PgBouncer (transaction mode) on Debian's PostgreSQL, with a non-superuser owner", () => {
  let cluster: DebianCluster
  let bouncer: PgBouncer
  let receiver: WebhookReceiver
  let servers: TestServer[] = []
  beforeAll(async () => {
    cluster = await startDebianCluster()
    const owner = await createManagedOwner(cluster.adminUrl, 'lab_owner', 'lab_db')
    bouncer = await startPgBouncer(cluster, owner.user, owner.password)
    receiver = await startWebhookReceiver()
    const env = {
      DATABASE_URL: `${cluster.urlFor(owner.user, owner.password, 'lab_db', bouncer.port)}?pgbouncer=true`,
      JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: String(LIMIT.perMinute),
      RATE_LIMIT_BURST: String(LIMIT.burst),
      TRUST_PROXY_HEADER: 'X-Forwarded-For',
      SIGNUP_WEBHOOK_URL: receiver.url,
      // The default send timeout, so the lease (3 times it) outlasts a slow moment of a loaded
      // machine: only a delivery whose server died is sent again.
      SIGNUP_WEBHOOK_RETRY_BASE_MS: '50',
      LOG_LEVEL: 'info',
    }
    servers = await Promise.all([1, 2, 3].map(() => startTestServer({ env, timeout: 90_000 })))
  }, 240_000)
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.cleanup()))
    await receiver?.close()
    await bouncer?.stop()
    await cluster?.stop()
  })

  it('all three came up on the empty database; the migrations ran once', () => {
    const applied = servers.map((server) => (server.output().match(/Applied migration /g) ?? []).length)
    expect(applied.filter((count) => count > 0)).toHaveLength(1)
    expect(applied.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(5)
  })

  it('one rate limit: 30 inserts from one address, 10 to each server at once, get what one server gives', async () => {
    const started = Date.now()
    const from = { 'X-Forwarded-For': '203.0.113.99' }
    const sends = Array.from({ length: 30 }, (_, n) =>
      insertStatus(servers[n % 3] as TestServer, `one.limit.${n}@example.com`, from),
    )
    const counts = tally(await Promise.all(sends))
    const refilled = Math.floor((((Date.now() - started) / 1000) * LIMIT.perMinute) / 60)
    console.log(
      `scale-out: 30 inserts from one address over 3 servers →`,
      counts,
      `(one server: ${LIMIT.burst} + ${refilled} refilled)`,
    )
    expect((counts[201] ?? 0) + (counts[429] ?? 0)).toBe(30)
    expect(counts[201]).toBeGreaterThanOrEqual(LIMIT.burst)
    expect(counts[201]).toBeLessThanOrEqual(LIMIT.burst + refilled)
  })

  it('load across all three, one killed with -9: no acknowledged signup lost, no 5xx from the others', async () => {
    const [a, b, c] = servers as [TestServer, TestServer, TestServer]
    const acknowledged: string[] = []
    const statuses: number[][] = [[], [], []]
    let sent = 0
    let killed: Promise<void> | undefined
    const tasks = Array.from({ length: LOAD }, (_, n) => async () => {
      if (++sent === KILL_AFTER) killed = c.kill()
      const target = n % 3
      const email = `load.${n}@example.com`
      const status = await insertStatus(servers[target] as TestServer, email, visitor(n)).catch(() => 0)
      statuses[target]?.push(status)
      if (status === 201) acknowledged.push(email)
    })
    await pool(CLIENTS, tasks)
    await killed
    const stored = new Set(await storedEmails(a))
    const lost = acknowledged.filter((email) => !stored.has(email))
    console.log(
      `scale-out: ${LOAD} inserts over 3 servers, the third killed -9 after ${KILL_AFTER} → ` +
        `${acknowledged.length} acknowledged, ${lost.length} lost; per server:`,
      statuses.map(tally),
    )
    expect(lost).toEqual([])
    expect(c.process.signalCode).toBe('SIGKILL')
    for (const survivor of [statuses[0], statuses[1]])
      expect(survivor?.every((status) => status === 201)).toBe(true)
    expect(acknowledged.length).toBeGreaterThan((LOAD * 2) / 3)
    expect(await storedEmails(b)).toHaveLength(stored.size)
  })

  it('webhooks: every signup delivered, shared between the servers, none twice but what the killed one had in flight', async () => {
    const [a, b] = servers as [TestServer, TestServer]
    const stored = (await storedEmails(a)).sort()
    await receiver.waitFor(
      () => deliveredEmails(receiver).length >= stored.length,
      'every signup delivered',
      120_000,
    )
    expect(deliveredEmails(receiver)).toEqual(stored)
    const okPerId = new Map<string, number>()
    for (const { id } of receiver.delivered()) okPerId.set(id, (okPerId.get(id) ?? 0) + 1)
    const twice = [...okPerId.values()].filter((count) => count > 1).length
    console.log(
      `scale-out: ${okPerId.size} webhooks delivered for ${stored.length} signups, ${twice} of them twice`,
    )
    expect(okPerId.size).toBe(stored.length)
    // A delivery the killed server sent but could not record is sent again, with the same webhook-id.
    expect(twice).toBeLessThanOrEqual(SENDS_PER_SERVER)
    for (const survivor of [a, b]) expect(survivor.output()).toMatch(/Signup notification msg_\S+ delivered/)
  })

  // Invitations (issue 22) are built on another branch: their case goes here once merged, in the
  // shape of the webhooks' one above (each invitation sent once, shared, through the kill).
  it.todo('invitations: every invitation sent once, shared between the servers, through the kill')
})
