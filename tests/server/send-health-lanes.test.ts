import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SmtpSink } from '../../harness/smtp-sink'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import type { OpenedDatabase } from '../../server/db/open-database'
import { markImport } from '../../server/waitlist/admin/import-staging'
import { inviteNamed } from '../../server/waitlist/invite/invitations'
import { confirm } from '../../server/waitlist/link-actions'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { standardHeaders, webhookSecret } from '../support/provider-signing'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

/**
 * Send health judges the two lanes apart, on a real server, a real SMTP server that answers 550
 * for `nobody…` recipients, and provider events signed as a relay signs them. What a stranger can
 * cause (confirmations, with CONFIRM_SIGNUPS on) pauses only confirmations; the lab's invitations
 * keep going. And no single event pauses anything: a pause needs the rate past its threshold and
 * at least MAIL_PAUSE_MIN_BOUNCES (5) or MAIL_PAUSE_MIN_COMPLAINTS (2), every setting at its default.
 */
const SECRET = webhookSecret()
const DOMAIN = { resend: false, messageDomain: 'tessel-labs.example' }

let receiver: WebhookReceiver
let mail: MailTestServer
let sink: SmtpSink
let server: TestServer
let database: OpenedDatabase

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  mail = await startMailTestServer(
    {
      CONFIRM_SIGNUPS: 'true',
      MAIL_PER_MINUTE: '0',
      MAIL_EVENTS_SECRET: SECRET,
      SIGNUP_WEBHOOK_URL: receiver.url,
      RATE_LIMIT_PER_MINUTE: '0',
    },
    { rcptReply: (address) => (address.startsWith('nobody') ? 550 : undefined) },
  )
  sink = mail.sink
  server = mail.server
  database = mail.database
})

afterAll(async () => {
  await mail?.close()
  await receiver?.close()
})

const signUp = async (email: string) => expect((await postWaitlist(server, { email })).status).toBe(201)

/** Entries the lab put on the list itself (no confirmation, no webhook), as `import` does. */
async function addMembers(emails: string[]): Promise<void> {
  await database.db.transaction(async (tx) => {
    await markImport(tx)
    await tx.query('insert into public.waitlist (email) select unnest($1::text[])', [emails])
  })
}

/** A relay's complaint about the last message sent to `email` (the generic route, signed). */
async function complain(email: string): Promise<void> {
  const body = JSON.stringify({ type: 'complaint', email })
  const response = await fetch(`${server.url}/mail-events/generic`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...standardHeaders(SECRET, body) },
    body,
  })
  expect(response.status).toBe(200)
}

const pausedWebhooks = () =>
  receiver
    .delivered()
    .filter(({ body }) => body.type === 'mail.paused')
    .map(({ body }) => String((body.data as { reason?: string }).reason))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('send health, one lane at a time', () => {
  it("a stranger's bouncing signups pause confirmations only; the lab's invitations keep going", async () => {
    const lab = ['ivy.lab@example.com', 'jon.lab@example.com', 'kim.lab@example.com']
    for (const email of lab) await signUp(email)
    // Each follows the link in the confirmation they got (a confirmation goes only to the unconfirmed).
    await sink.waitFor(() => lab.every((email) => sink.countFor(email) === 1), "the lab's confirmations")
    for (const email of lab) expect(await confirm(database.db, email)).toBe('done')

    // 22 signups, 2 at addresses that answer 550: 2 hard bounces pause nothing.
    const strangers = Array.from({ length: 22 }, (_, i) =>
      i % 11 === 5 ? `nobody${i}@example.net` : `stranger${i}@example.net`,
    )
    for (const email of strangers) await signUp(email)
    await sink.waitFor(() => sink.received.length + sink.refused.length >= 25, 'the 25 confirmations')
    expect(sink.refused).toHaveLength(2)
    // The gate judged the 25 before it claimed this one.
    await signUp('stranger-next@example.net')
    await sink.waitFor(
      () => sink.countFor('stranger-next@example.net') === 1,
      'a confirmation after 2 bounces',
    )
    expect(server.output()).not.toContain('Sending paused')

    // Five more bounce: 7 of 31, past 5% with at least 5.
    for (let i = 0; i < 5; i++) await signUp(`nobody-more${i}@example.net`)
    await sink.waitFor(
      () => server.output().includes('Sending paused for confirmations: hard bounces are'),
      'confirmations did not pause',
    )
    expect(server.output()).not.toContain('Sending paused for invitations')

    // The lab's invitations go while confirmations wait.
    const late = 'late.stranger@example.net'
    await signUp(late)
    expect((await inviteNamed(database.db, lab, DOMAIN)).queued).toHaveLength(3)
    await sink.waitFor(() => lab.every((email) => sink.countFor(email) === 2), 'the invitations while paused')
    await sleep(500)
    expect(sink.countFor(late), 'a confirmation waits').toBe(0)

    const report = await runCli(server.env, 'deliveries')
    expect(report.stdout).toMatch(
      /Confirmations are paused since .*: hard bounces are \d+\.\d% of the last \d+ messages \(\d\), past MAIL_PAUSE_BOUNCE_RATE 0\.05/,
    )
    expect(report.stdout).not.toContain('Invitations are paused')
    await receiver.waitFor(() => pausedWebhooks().length === 1, 'no mail.paused webhook')
    expect(pausedWebhooks()[0]).toMatch(/^confirmations: hard bounces are /)

    const resumed = await runCli(server.env, 'deliveries', '--resume')
    expect(resumed.stdout).toContain('Confirmations resumed (they were paused: hard bounces are')
    await sink.waitFor(() => sink.countFor(late) === 1, 'the waiting confirmation after --resume')
  })

  it('one complaint pauses nothing; a second, past the rate, pauses invitations', async () => {
    const members = Array.from({ length: 22 }, (_, i) => `member${i}@example.org`)
    await addMembers(members)
    expect((await inviteNamed(database.db, members, DOMAIN)).queued).toHaveLength(22)
    await sink.waitFor(() => members.every((email) => sink.countFor(email) === 1), 'the 22 invitations')

    await complain('member0@example.org')
    const more = ['member.more0@example.org', 'member.more1@example.org']
    await addMembers(more)
    await inviteNamed(database.db, more, DOMAIN)
    await sink.waitFor(
      () => more.every((email) => sink.countFor(email) === 1),
      'invitations after one complaint',
    )
    expect(server.output()).not.toContain('Sending paused for invitations')

    await complain('member1@example.org')
    const last = ['member.last0@example.org', 'member.last1@example.org']
    await addMembers(last)
    await inviteNamed(database.db, last, DOMAIN)
    await sink.waitFor(
      () => server.output().includes('Sending paused for invitations: complaints are'),
      'invitations did not pause',
    )
    await sleep(500)
    expect(last.map((email) => sink.countFor(email))).toEqual([0, 0])
    await receiver.waitFor(() => pausedWebhooks().length === 2, 'no second mail.paused webhook')
    expect(pausedWebhooks()[1]).toMatch(
      /^invitations: complaints are \d+\.\d% of the last \d+ messages \(2\)/,
    )
    const report = await runCli(server.env, 'deliveries')
    expect(report.stdout).toContain('Invitations are paused since')
    expect(report.stdout).not.toContain('Confirmations are paused')

    const resumed = await runCli(server.env, 'deliveries', '--resume')
    expect(resumed.stdout).toContain('Invitations resumed (they were paused: complaints are')
    await sink.waitFor(() => last.every((email) => sink.countFor(email) === 1), 'the rest after --resume')
  })
})
