import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import type { Database } from '../../server/db/database'
import { readMigrations } from '../../server/db/migrate'
import { openPostgres } from '../../server/db/postgres-driver'
import {
  type DebianCluster,
  type PgBouncer,
  startDebianCluster,
  startPgBouncer,
} from '../support/debian-postgres'
import { createManagedOwner } from '../support/managed-owner'
import { socketOwner } from '../support/socket-owner'
import { deliveredEmails, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'
import { insertStatus, pool, rowCount, storedEmails, tally } from './support'

const SECRET = 'pgbouncer-scale-out-secret-'.padEnd(48, 'x')
const LIMIT = { perMinute: 10, burst: 5 }
const LOAD = 1800
const CLIENTS = 30
/** Sent before the third server is killed. */
const KILL_AFTER = 500
/** The most deliveries one server has in flight at once, so the most a kill -9 can leave unrecorded. */
const SENDS_PER_SERVER = 4
/** Invitations in each of the two batches; at the default MAIL_PER_MINUTE (60) a batch takes 20 s. */
const BATCH = 20

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
  let sink: SmtpSink
  let env: Record<string, string>
  /** The owner's connection straight to PostgreSQL, for the test's own reads. */
  let direct: Database
  let servers: TestServer[] = []
  beforeAll(async () => {
    cluster = await startDebianCluster()
    const owner = await createManagedOwner(cluster.adminUrl, 'lab_owner', 'lab_db')
    bouncer = await startPgBouncer(cluster, owner.user, owner.password)
    receiver = await startWebhookReceiver()
    sink = await startSmtpSink()
    direct = await openPostgres(cluster.urlFor(owner.user, owner.password, 'lab_db'), 1)
    env = {
      DATABASE_URL: `${cluster.urlFor(owner.user, owner.password, 'lab_db', bouncer.port)}?pgbouncer=true`,
      JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: String(LIMIT.perMinute),
      RATE_LIMIT_BURST: String(LIMIT.burst),
      TRUST_PROXY_HEADER: 'X-Forwarded-For',
      SIGNUP_WEBHOOK_URL: receiver.url,
      // The default send timeout, so the lease (3 times it) outlasts a slow moment of a loaded
      // machine: only a delivery whose server died is sent again.
      SIGNUP_WEBHOOK_RETRY_BASE_MS: '50',
      // Mail with every other setting at its default: MAIL_PER_MINUTE 60, SMTP_TIMEOUT_MS 30 s.
      SMTP_URL: sink.url,
      MAIL_FROM: 'Tessel Labs <beta@tessel-labs.example>',
      LOG_LEVEL: 'info',
    }
    servers = await Promise.all([1, 2, 3].map(() => startTestServer({ env, timeout: 90_000 })))
  }, 240_000)
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.cleanup()))
    await direct?.close()
    await sink?.close()
    await receiver?.close()
    await bouncer?.stop()
    await cluster?.stop()
  })

  it('all three came up on the empty database; the migrations ran once', async () => {
    // Each migration takes the lock in its own transaction, so the three may share them out (two
    // did, 3 and 7, on 2026-11-24): what matters is that each ran once, on one of them.
    const applied = servers.flatMap((server) => server.output().match(/(?<=Applied migration )\S+/g) ?? [])
    const files = (await readMigrations()).map((migration) => `${migration.version}_${migration.name}`)
    expect(applied.sort()).toEqual(files)
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
    const [a, , c] = servers as [TestServer, TestServer, TestServer]
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
    // One row per address: as many rows as distinct addresses.
    expect(await rowCount(a)).toBe(stored.size)
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

  /** Queues the next BATCH invitations through the CLI, on PgBouncer as the servers are; their addresses. */
  async function inviteBatch(): Promise<string[]> {
    const before = await direct.query<{ id: string }>('select max(id)::text as id from private.mail_outbox')
    const queued = await runCli(env, 'invite', '--next', String(BATCH))
    expect(queued, queued.stderr).toMatchObject({ code: 0 })
    expect(queued.stdout).toContain(`Queued ${BATCH} invitations.`)
    const rows = await direct.query<{ email: string }>(
      `select w.email::text as email from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
        where o.id > coalesce($1::bigint, 0) and o.kind = 'invitation' order by o.id`,
      [before[0]?.id ?? null],
    )
    return rows.map((row) => row.email.toLowerCase())
  }

  /** Waits until the outbox has recorded every message sent: none is leased or due any more. */
  async function allRecorded(timeout: number): Promise<void> {
    await expect
      .poll(
        async () =>
          (
            await direct.query<{ n: number }>(
              "select count(*)::int as n from private.mail_outbox where status <> 'sent'",
            )
          )[0]?.n,
        { timeout, interval: 500 },
      )
      .toBe(0)
  }

  const sentBy = (server: TestServer) => (server.output().match(/Invitation <\S+> sent/g) ?? []).length

  it('invitations: each sent exactly once, shared between the three servers, at MAIL_PER_MINUTE for all of them', async () => {
    // The third server was killed above: a new one takes its place on the same database.
    const third = await startTestServer({ env, timeout: 90_000 })
    servers.push(third)
    const senders = [servers[0], servers[1], third] as TestServer[]
    const emails = await inviteBatch()
    expect(emails).toHaveLength(BATCH)
    await sink.waitFor(() => emails.every((email) => sink.countFor(email) >= 1), 'every invitation', 90_000)
    await allRecorded(30_000)
    // Each server logs its sends once they are recorded.
    await expect.poll(() => senders.map(sentBy).reduce((sum, n) => sum + n, 0)).toBe(BATCH)
    const at = sink.received.map((mail) => mail.at).sort((a, b) => a - b)
    const spanMs = (at.at(-1) ?? 0) - (at[0] ?? 0)
    // 60 a minute is one a second: any 5 s holds at most 5 starts, plus one for SMTP's jitter.
    const mostIn5s = Math.max(...at.map((start) => at.filter((t) => t >= start && t < start + 5_000).length))
    const perServer = senders.map(sentBy)
    console.log(
      `scale-out: ${BATCH} invitations over 3 servers at the default MAIL_PER_MINUTE (60) → ` +
        `${sink.received.length} messages over ${(spanMs / 1000).toFixed(1)} s ` +
        `(${(((BATCH - 1) * 60_000) / spanMs).toFixed(0)} a minute), at most ${mostIn5s} in any 5 s, sent per server:`,
      perServer,
    )
    expect(emails.map((email) => sink.countFor(email))).toEqual(emails.map(() => 1))
    expect(sink.received).toHaveLength(BATCH)
    expect(perServer.reduce((sum, n) => sum + n, 0)).toBe(BATCH)
    expect(perServer.filter((n) => n > 0).length).toBeGreaterThan(1)
    expect(mostIn5s).toBeLessThanOrEqual(6)
    // The starts are a second apart; an acceptance may lag its start by a slow send (2 s allowed).
    expect(spanMs).toBeGreaterThanOrEqual((BATCH - 1) * 1_000 - 2_000)
  }, 180_000)

  it('invitations through a kill -9 of the server mid-send: every one sent at least once, the duplicates counted', async () => {
    const senders = servers.filter(
      (server) => server.process.exitCode === null && server.process.signalCode === null,
    )
    expect(senders).toHaveLength(3)
    const before = sink.received.length
    const sentBefore = senders.map(sentBy)
    const emails = await inviteBatch()
    await sink.waitFor(() => sink.received.length >= before + 3, 'the batch under way', 60_000)
    // The next message's data has arrived and its 250 is held: its server is mid-send. Killed
    // then, it cannot record the message, which the SMTP server accepts all the same.
    const held = await sink.holdNext()
    const pids = senders.map((server) => server.process.pid ?? 0)
    const victim = senders[pids.indexOf(socketOwner(held.remotePort, sink.port, pids) ?? -1)]
    if (!victim) throw new Error(`no server holds the SMTP connection from port ${held.remotePort}`)
    await victim.kill()
    held.release()
    const acceptedAtKill = sink.received.length - before
    await sink.waitFor(() => emails.every((email) => sink.countFor(email) >= 1), 'every invitation', 120_000)
    // The message the dead server had claimed is due again once its lease (3 x SMTP_TIMEOUT_MS,
    // 90 s by default) ends, and one of the two others sends it.
    await allRecorded(180_000)
    const twice = emails.filter((email) => sink.countFor(email) > 1)
    const survivors = senders.filter((server) => server !== victim)
    const bySurvivors = survivors.map((server) => sentBy(server) - (sentBefore[senders.indexOf(server)] ?? 0))
    console.log(
      `scale-out: kill -9 of one of 3 servers in the middle of a send, after ${acceptedAtKill} of ${BATCH} ` +
        `invitations accepted → all ${BATCH} received, ${twice.length} twice (accepted by SMTP, not yet ` +
        `recorded when the server died); ${sink.received.length - before} messages in all; the two others sent`,
      bySurvivors,
    )
    expect(victim.process.signalCode).toBe('SIGKILL')
    expect(twice).toContain(held.to[0])
    expect(twice.length).toBeLessThanOrEqual(SENDS_PER_SERVER)
    expect(sink.received.length - before).toBe(emails.reduce((sum, email) => sum + sink.countFor(email), 0))
    expect(bySurvivors.some((n) => n > 0)).toBe(true)
  }, 360_000)
})
