import { expect } from 'vitest'
import { runCli } from '../../harness/waitlist-cli'
import { inviteNext } from '../../server/waitlist/invite/invitations'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { standardHeaders, webhookSecret } from '../support/provider-signing'
import type { WebhookReceiver } from '../support/webhook-receiver'
import { insertStatus } from './support'

/**
 * Send health (ADR 045) on a real server and a real SMTP server: a batch of 40 invitations, paced,
 * while the relay reports a hard bounce for each of the first 6 messages as they arrive (past 5%,
 * and at least MAIL_PAUSE_MIN_BOUNCES). The invitations' lane pauses before the batch ends,
 * `deliveries` says so and why, the lab's webhook hears mail.paused naming the lane, nothing queued
 * is lost, and `deliveries --resume` sends the rest.
 */
const SECRET = webhookSecret()
const BATCH = 40
const BOUNCING = 6

let mail: MailTestServer
let receiver: WebhookReceiver

const it = mailTest(
  {
    // One message every 200 ms: the batch takes some 8 s, long enough to bounce in.
    MAIL_PER_MINUTE: '300',
    MAIL_EVENTS_SECRET: SECRET,
    RATE_LIMIT_PER_MINUTE: '0',
  },
  { webhook: true },
)

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail: started, receiver: listening }) => {
  mail = started
  receiver = listening
})

async function bounce(email: string): Promise<void> {
  const body = JSON.stringify({ type: 'bounce', email, bounce: 'hard', reason: '550 5.1.1 user unknown' })
  const response = await fetch(`${mail.server.url}/mail-events/generic`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...standardHeaders(SECRET, body) },
    body,
  })
  expect(response.status).toBe(200)
}

const pending = async () => {
  const [row] = await mail.database.db.query<{ n: number }>(
    `select count(*)::int as n from private.mail_outbox where status = 'pending'`,
  )
  return row?.n ?? 0
}

it('pauses a bouncing batch before it ends, says why, and --resume sends the rest', async () => {
  const emails = Array.from({ length: BATCH }, (_, i) => `pause.${String(i).padStart(2, '0')}@example.com`)
  for (const email of emails) expect(await insertStatus(mail.server, email)).toBe(201)
  const { messageIds } = await inviteNext(mail.database.db, BATCH, {
    resend: false,
    messageDomain: 'tessel-labs.example',
  })
  expect(messageIds).toHaveLength(BATCH)

  // The relay's bounce reports, each as soon as its message arrives.
  const bounced = new Set<string>()
  const sentTo = new Set<string>()
  const watch = setInterval(async () => {
    const rows = await mail.database.db.query<{ email: string }>(
      `select w.email from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id where o.status = 'sent'`,
    )
    for (const row of rows) sentTo.add(row.email)
  }, 20)
  while (bounced.size < BOUNCING) {
    await mail.sink.waitFor(() => mail.sink.received.length > bounced.size, 'the batch did not start')
    for (const received of mail.sink.received.slice(bounced.size, BOUNCING)) {
      const to = received.to[0] ?? ''
      // As a relay reports: after it accepted the message (and the sender recorded it sent).
      await mail.sink.waitFor(() => sentTo.has(to), 'the message was not recorded as sent')
      await bounce(to)
      bounced.add(to)
    }
  }

  clearInterval(watch)
  await mail.sink.waitFor(
    () => mail.server.output().includes('Sending paused for invitations:'),
    'sending did not pause',
    60_000,
  )
  const sentAtPause = mail.sink.received.length
  expect(sentAtPause).toBeLessThan(BATCH)
  // Paused, not slowed: nothing more goes out, and what is queued stays queued.
  await new Promise((resolve) => setTimeout(resolve, 1500))
  expect(mail.sink.received.length).toBeLessThanOrEqual(sentAtPause + 1)
  expect(await pending()).toBe(BATCH - mail.sink.received.length)
  expect(mail.server.output().match(/Sending paused for /g)).toHaveLength(1)
  await receiver.waitFor(
    () =>
      receiver
        .delivered()
        .some(
          ({ body }) =>
            body.type === 'mail.paused' &&
            String((body.data as { reason?: string }).reason).startsWith('invitations: '),
        ),
    'no mail.paused webhook',
  )

  const report = await runCli(mail.server.env, 'deliveries')
  expect(report.code).toBe(0)
  expect(report.stdout).toMatch(
    /Invitations are paused since .*: hard bounces are \d+\.\d% of the last \d+ messages \(\d\), past MAIL_PAUSE_BOUNCE_RATE 0\.05/,
  )
  expect(report.stdout).toMatch(/hard bounces \d \(/)

  const resumed = await runCli(mail.server.env, 'deliveries', '--resume')
  expect(resumed.stdout).toContain('Invitations resumed (they were paused: hard bounces are')
  await mail.sink.waitFor(
    () => mail.sink.received.length === BATCH,
    'the rest of the batch was not sent',
    60_000,
  )
  // The relay has the last message a moment before the server records it sent (CI read 1 pending).
  await expect.poll(pending, { timeout: 10_000 }).toBe(0)
  expect(new Set(mail.sink.received.map((mail) => mail.to[0])).size).toBe(BATCH)
  const after = await runCli(mail.server.env, 'deliveries')
  expect(after.stdout).not.toContain('are paused since')
  console.info(`pause test: ${sentAtPause} of ${BATCH} sent when sending paused; ${BATCH} after --resume`)
}, 120_000)
