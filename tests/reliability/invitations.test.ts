import { afterAll, describe, expect, it } from 'vitest'
import { sharedPostgresUrl, startServerOn, stopBackends } from '../../harness/backends'
import { type SmtpSink, startSmtpSink } from '../../harness/smtp-sink'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'
import { loadApiKeys } from '../../server/auth/api-keys'
import type { Database } from '../../server/db/database'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { createSmtpTransport } from '../../server/mail/smtp-transport'
import { parseMailFrom, parseSmtpUrl } from '../../server/mail/transport-config'
import { openBesideServer } from '../support/file-server'

/**
 * Invitations through failures, with a real SMTP server (smtp-server) and the real server process:
 * a kill -9 in the middle of a batch, the SMTP server down then back, a 550 for one address, the
 * rate cap shared by two servers, and the owner's commands around them. Each prints its figures.
 */
afterAll(stopBackends)

const FROM = 'Tessel Labs <beta@tessel-labs.example>'
// Short waits so retries and leases fall within a test; the shape is production's.
const FAST = { MAIL_FROM: FROM, MAIL_RETRY_BASE_MS: '200', SMTP_TIMEOUT_MS: '2000', LOG_LEVEL: 'info' }

const address = (prefix: string, i: number) => `${prefix}.${String(i).padStart(3, '0')}@example.com`

/** Adds addresses as the owner would import them: no notification, no confirmation. */
async function addEntries(db: Database, emails: string[]): Promise<void> {
  await db.query('insert into public.waitlist (email) select unnest($1::text[])', [emails])
}

async function outboxStatuses(db: Database): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: number }>(
    'select status, count(*)::int as n from private.mail_outbox group by status',
  )
  return Object.fromEntries(rows.map((row) => [row.status, row.n]))
}

const duplicates = (sink: SmtpSink, emails: string[]) =>
  emails.filter((email) => sink.countFor(email) > 1).length

describe('the mail outbox through failures', () => {
  it('kill -9 in the middle of a batch of 200 to a slow SMTP server: after a restart everyone has their invitation', async () => {
    const sink = await startSmtpSink({ delayMs: 40 })
    const env = { ...FAST, SMTP_URL: sink.url, MAIL_PER_MINUTE: '0' }
    let server = await startTestServer({ env })
    const emails = Array.from({ length: 200 }, (_, i) => address('crash', i))
    try {
      const opened = await openBesideServer(server)
      await addEntries(opened.db, emails)
      await opened.close()
      const queued = await runCli(server.env, 'invite', '--next', '200')
      expect(queued.stdout).toContain('Queued 200 invitations.')
      await sink.waitFor(() => sink.received.length >= 60, '60 messages accepted')
      await server.kill()
      const beforeRestart = sink.received.length
      server = await startTestServer({ dataDir: server.dataDir, env })
      await sink.waitFor(() => emails.every((email) => sink.countFor(email) >= 1), 'every invitation', 90_000)
      // Messages the dead server had in flight are due again once their lease (3 x SMTP_TIMEOUT_MS) ends.
      const database = await openBesideServer(server)
      await expect.poll(() => outboxStatuses(database.db), { timeout: 60_000 }).toEqual({ sent: 200 })
      const twice = duplicates(sink, emails)
      console.log(
        `kill -9 after ${beforeRestart} of 200 accepted; after the restart all 200 received their invitation, ` +
          `${twice} twice (accepted by SMTP, not yet recorded when the server died); ${sink.received.length} messages in all`,
      )
      // At most the messages in flight when the process died (4 at a time) can go twice.
      expect(twice).toBeLessThanOrEqual(4)
      await database.close()
    } finally {
      await server.cleanup()
      await sink.close()
    }
  })

  it('the SMTP server down, then back: nothing is lost, and the attempts meanwhile were retried', async () => {
    const sink = await startSmtpSink()
    await sink.close()
    const server = await startServerOn('postgres', {
      env: { ...FAST, SMTP_URL: sink.url, MAIL_PER_MINUTE: '0' },
    })
    const emails = Array.from({ length: 20 }, (_, i) => address('outage', i))
    const database = await openBesideServer(server)
    try {
      await addEntries(database.db, emails)
      expect((await runCli(server.env, 'invite', ...emails)).stdout).toContain('Queued 20 invitations.')
      await expect.poll(() => /attempt [2-9] failed/.test(server.output()), { timeout: 30_000 }).toBe(true)
      const [tried] = await database.db.query<{ attempts: number }>(
        'select sum(attempts)::int as attempts from private.mail_outbox',
      )
      await sink.reopen()
      await sink.waitFor(() => emails.every((email) => sink.countFor(email) >= 1), 'every invitation', 60_000)
      console.log(
        `SMTP down: ${tried?.attempts} failed attempts for 20 messages, then back up: all 20 delivered, ` +
          `${duplicates(sink, emails)} twice`,
      )
      expect(duplicates(sink, emails)).toBe(0)
      await expect.poll(() => outboxStatuses(database.db)).toEqual({ sent: 20 })
      expect(server.output()).not.toMatch(/outage\.\d+@/)
    } finally {
      await database.close()
      await server.cleanup()
    }
  })

  it('a 550 for one address bounces it for good; a 450 is retried; the others are delivered', async () => {
    let deferred = 0
    const sink = await startSmtpSink({
      rcptReply: (to) => {
        if (to.startsWith('nobody.')) return 550
        if (to.startsWith('busy.') && deferred++ < 2) return 450
        return undefined
      },
    })
    const server = await startServerOn('postgres', {
      env: { ...FAST, SMTP_URL: sink.url, MAIL_PER_MINUTE: '0' },
    })
    const emails = [
      'nobody.here@example.com',
      'busy.box@example.com',
      ...Array.from({ length: 8 }, (_, i) => address('fine', i)),
    ]
    const database = await openBesideServer(server)
    try {
      await addEntries(database.db, emails)
      await runCli(server.env, 'invite', '--next', '10')
      await sink.waitFor(() => emails.slice(1).every((email) => sink.countFor(email) === 1), '9 delivered')
      await expect.poll(() => outboxStatuses(database.db)).toEqual({ sent: 9, bounced: 1 })
      // Retries run every 200 ms here: a bounced message would have been tried again by now.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(sink.refused.filter((to) => to.startsWith('nobody.'))).toHaveLength(1)
      const listed = await runCli(server.env, 'list')
      expect(listed.stdout).toMatch(/nobody\.here@example\.com {2}bounced/)
      const deliveries = await runCli(server.env, 'deliveries', '--show-addresses')
      expect(deliveries.stdout).toContain('Mail: 0 pending, 0 failed.')
      expect(deliveries.stdout).toMatch(/: 1 bounced, 0 complained\.$/m)
      expect(deliveries.stdout).toMatch(
        /^bounced +\S+Z +nobody\.here@example\.com +last error: EENVELOPE \(RCPT TO\)/m,
      )
      const again = await runCli(server.env, 'invite', 'nobody.here@example.com')
      expect(again).toMatchObject({ code: 1 })
      expect(again.stdout).toContain('bounced: the mail server refused it for good (--resend tries again)')
      console.log(`550: 1 bounced, attempted once; 450 twice then accepted; 9 of 10 delivered, each once`)
    } finally {
      await database.close()
      await server.cleanup()
      await sink.close()
    }
  })

  it('MAIL_PER_MINUTE holds for two servers sharing one database', async () => {
    const sink = await startSmtpSink()
    const url = await sharedPostgresUrl()
    const env = { ...FAST, SMTP_URL: sink.url, MAIL_PER_MINUTE: '120', DATABASE_URL: url }
    const servers = [await startTestServer({ env }), await startTestServer({ env })]
    const emails = Array.from({ length: 12 }, (_, i) => address('paced', i))
    const database = await openBesideServer(servers[0] as TestServer)
    try {
      await addEntries(database.db, emails)
      await runCli({ DATABASE_URL: url, ...FAST, SMTP_URL: sink.url }, 'invite', '--next', '12')
      await sink.waitFor(() => sink.received.length === 12, 'all 12', 60_000)
      const at = sink.received.map((mail) => mail.at).sort((a, b) => a - b)
      // 120 a minute is one every 500 ms: any 2 s holds at most 4 starts, plus one for SMTP's jitter.
      const mostIn2s = Math.max(
        ...at.map((start) => at.filter((t) => t >= start && t < start + 2_000).length),
      )
      const spanMs = (at.at(-1) ?? 0) - (at[0] ?? 0)
      const senders = servers.filter((server) => /Invitation <\S+> sent/.test(server.output())).length
      console.log(
        `MAIL_PER_MINUTE=120 on 2 servers: 12 messages over ${(spanMs / 1000).toFixed(1)} s ` +
          `(${((11 * 60_000) / spanMs).toFixed(0)} a minute), at most ${mostIn2s} in any 2 s, sent by ${senders} servers`,
      )
      expect(mostIn2s).toBeLessThanOrEqual(5)
      expect(spanMs).toBeGreaterThanOrEqual(11 * 500 - 500)
      expect(senders).toBe(2)
    } finally {
      await database.close()
      for (const server of servers) await server.cleanup()
      await sink.close()
    }
  })
})

describe('the owner commands around mail', () => {
  it('deliveries lists a message whose retries ran out, and --retry sends it once the SMTP server is back', async () => {
    const sink = await startSmtpSink()
    await sink.close()
    const env = { ...FAST, SMTP_URL: sink.url, MAIL_PER_MINUTE: '0', MAIL_RETRY_FOR_MS: '0' }
    const server = await startServerOn('postgres', { env })
    const database = await openBesideServer(server)
    try {
      await addEntries(database.db, ['retried.later@example.com'])
      await runCli(server.env, 'invite', '--next', '1')
      await expect.poll(() => outboxStatuses(database.db), { timeout: 20_000 }).toEqual({ failed: 1 })
      const listed = await runCli(server.env, 'deliveries')
      expect(listed.stdout).toContain('Mail: 0 pending, 1 failed.')
      expect(listed.stdout).toMatch(
        /failed +invitation +\S+ +retried\.later@example\.com +attempts 1 +last error: /,
      )
      await sink.reopen()
      const retried = await runCli(server.env, 'deliveries', '--retry')
      expect(retried.stdout).toContain('Re-queued 0 failed deliveries and 1 failed message')
      await sink.waitFor(() => sink.countFor('retried.later@example.com') === 1, 'the retried invitation')
      await expect.poll(() => outboxStatuses(database.db)).toEqual({ sent: 1 })
    } finally {
      await database.close()
      await server.cleanup()
      await sink.close()
    }
  })

  it("the links' POSTs are rate-limited per client like every write; their GETs are not", async () => {
    const server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '1' } })
    try {
      const keys = linkKeys((await loadApiKeys({ dataDir: server.dataDir, databaseUrl: undefined })).secret)
      const url = `${server.url}/unsubscribe?t=${sealAddress(keys.unsubscribe, 'limited@example.com')}`
      const oneClick = () => fetch(url, { method: 'POST', body: 'List-Unsubscribe=One-Click' })
      expect((await oneClick()).status).toBe(200)
      const limited = await oneClick()
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await limited.text()).toContain('Too many requests')
      for (let i = 0; i < 3; i++) expect((await fetch(url)).status).toBe(200)
    } finally {
      await server.cleanup()
    }
  })

  it('with no server that can send, --dry-run changes nothing and invite queues, saying they wait', async () => {
    const server = await startServerOn('postgres', { env: { MAIL_FROM: FROM } })
    const database = await openBesideServer(server)
    try {
      await addEntries(database.db, ['first.dry@example.com', 'second.dry@example.com'])
      const dry = await runCli(server.env, 'invite', '--next', '1', '--dry-run')
      expect(dry.code).toBe(0)
      expect(dry.stdout).toContain('Dry run: 1 invitation would be queued. Nothing was written.')
      expect(dry.stdout).toMatch(/first\.dry@example\.com {2}\(waiting\)/)
      expect(dry.stdout).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
      expect(dry.stdout).toContain('Subject: Your invitation to the Tessel Labs private beta')
      expect(dry.stdout).toContain('The last server to start on this database has no SMTP_URL')
      expect(await outboxStatuses(database.db)).toEqual({})
      expect((await runCli(server.env, 'list')).stdout).not.toContain('invited')
      // Nothing was refused: the invitations wait in the outbox for a server with SMTP_URL.
      const queued = await runCli(server.env, 'invite', '--next', '5')
      expect(queued).toMatchObject({ code: 0, stderr: '' })
      expect(queued.stdout).toContain('Queued 2 invitations.')
      expect(queued.stdout).toContain('go out once a server with SMTP_URL and MAIL_FROM runs')
      expect(queued.stdout).not.toContain('nothing was queued')
      expect(await outboxStatuses(database.db)).toEqual({ pending: 2 })
    } finally {
      await database.close()
      await server.cleanup()
    }
  })

  it('invite --wait follows the batch to the end; a wrong password is retried and never shown', async () => {
    const sink = await startSmtpSink({ auth: { user: 'lab', pass: 'right-pass' } })
    const wrong = sink.url.replace('right-pass', 'wrong-pass-123')
    const server = await startServerOn('postgres', {
      env: { ...FAST, SMTP_URL: wrong, MAIL_PER_MINUTE: '0' },
    })
    const database = await openBesideServer(server)
    try {
      await addEntries(database.db, ['waited.one@example.com', 'waited.two@example.com'])
      await runCli({ ...server.env, SMTP_URL: sink.url }, 'invite', '--next', '1')
      await expect.poll(() => sink.failedLogins.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2)
      expect(server.output()).toMatch(/attempt \d failed: EAUTH/)
      expect(server.output()).not.toContain('wrong-pass-123')
      const deliveries = await runCli(server.env, 'deliveries')
      expect(deliveries.stdout).not.toContain('wrong-pass-123')
      expect(deliveries.stdout).toMatch(/pending +invitation .*last error: EAUTH/)
      await server.stop()
      const right = await startTestServer({
        dataDir: server.dataDir,
        env: { ...server.env, SMTP_URL: sink.url },
      })
      const waited = await runCli(
        { ...server.env, SMTP_URL: sink.url },
        'invite',
        'waited.two@example.com',
        '--wait',
      )
      expect(waited.code).toBe(0)
      expect(waited.stdout).toMatch(/Sent 1 of 1: 0 pending, 0 bounced, 0 failed/)
      await sink.waitFor(
        () => sink.countFor('waited.one@example.com') === 1,
        'the first, once the password is right',
      )
      await right.stop()
    } finally {
      await database.close()
      await server.cleanup()
      await sink.close()
    }
  })

  it('TLS is required off loopback: a server that offers no STARTTLS gets nothing in clear', async () => {
    const sink = await startSmtpSink()
    // What parseSmtpUrl makes of a host that is not loopback, pointed at this plain sink.
    const config = { ...parseSmtpUrl(`smtp://u:p@mail.example.com:${sink.port}`), host: '127.0.0.1' }
    expect(config).toMatchObject({ requireTLS: true, ignoreTLS: false })
    const from = parseMailFrom(FROM)
    if (!from) throw new Error('MAIL_FROM')
    const transport = createSmtpTransport({ ...config, auth: undefined }, from, {
      timeoutMs: 2_000,
      maxConnections: 1,
    })
    try {
      const mail = {
        to: 'tls@example.com',
        subject: 's',
        text: 't',
        html: '<p>t</p>',
        messageId: '<x@y.example>',
        headers: {},
      }
      const outcome = await transport.send(mail, AbortSignal.timeout(5_000))
      expect(outcome).toMatchObject({ status: 'transient' })
      expect(JSON.stringify(outcome)).toMatch(/STARTTLS|TLS/i)
      expect(sink.received).toHaveLength(0)
    } finally {
      transport.close()
      await sink.close()
    }
  })
})
