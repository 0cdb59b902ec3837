import { describe, expect } from 'vitest'
import { startStudioProcess } from '../../harness/studio-process'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import type { SendHealth } from '../../server/mail/queue/send-health'
import { markImport } from '../../server/waitlist/admin/import-staging'
import { inviteNamed } from '../../server/waitlist/invite/invitations'
import { confirm } from '../../server/waitlist/link-actions'
import { CONFIRMING, mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { standardHeaders, webhookSecret } from '../support/provider-signing'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * Send health judges the two lanes apart, on a real server, a real SMTP server that answers 550
 * at RCPT for `nobody…` recipients, and provider events signed as a relay signs them. What a
 * stranger can cause (confirmations, with CONFIRM_SIGNUPS on) pauses first the stranger's own
 * network (signups from several, named by a trusted X-Forwarded-For), then only confirmations;
 * the lab's invitations keep going. And no single event pauses anything: a pause needs the rate
 * past its threshold and at least MAIL_PAUSE_MIN_BOUNCES (5) or MAIL_PAUSE_MIN_COMPLAINTS (2), and
 * the confirmations lane bounces from MAIL_PAUSE_MIN_NETWORKS (5) networks, every setting at its default.
 */
const SECRET = webhookSecret()
const DOMAIN = { resend: false, messageDomain: 'tessel-labs.example' }

let receiver: WebhookReceiver
let mail: MailTestServer

const it = mailTest(
  { ...CONFIRMING, MAIL_EVENTS_SECRET: SECRET, TRUST_PROXY_HEADER: 'X-Forwarded-For' },
  { sink: { rcptReply: (address) => (address.startsWith('nobody') ? 550 : undefined) }, webhook: true },
)

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail: started, receiver: listening }) => {
  mail = started
  receiver = listening
})

/** A signup through the REST insert, from `from` as the trusted proxy names the client (else 127.0.0.1). */
const signUp = async (email: string, from?: string) => {
  const headers: Record<string, string> = from ? { 'X-Forwarded-For': from } : {}
  expect((await postWaitlist(mail.server, { email }, headers)).status).toBe(201)
}

/** Entries the lab put on the list itself (no confirmation, no webhook), as `import` does. */
async function addMembers(emails: string[]): Promise<void> {
  await mail.database.db.transaction(async (tx) => {
    await markImport(tx)
    await tx.query('insert into public.waitlist (email) select unnest($1::text[])', [emails])
  })
}

/** A relay's complaint about the last message sent to `email` (the generic route, signed). */
async function complain(email: string): Promise<void> {
  const body = JSON.stringify({ type: 'complaint', email })
  const response = await fetch(`${mail.server.url}/mail-events/generic`, {
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
  it("a stranger's bouncing signups hold back only the stranger's network; the lane pauses from five networks; invitations go on", async () => {
    const lab = ['ivy.lab@example.com', 'jon.lab@example.com', 'kim.lab@example.com']
    for (const email of lab) await signUp(email)
    // Each follows the link in the confirmation they got (a confirmation goes only to the unconfirmed).
    await mail.sink.waitFor(
      () => lab.every((email) => mail.sink.countFor(email) === 1),
      "the lab's confirmations",
    )
    for (const email of lab) expect(await confirm(mail.database.db, email)).toBe('done')

    // 22 signups from 22 networks, 2 at addresses that answer 550: 2 hard bounces pause nothing.
    for (let i = 0; i < 22; i++)
      await signUp(i % 11 === 5 ? `nobody${i}@example.net` : `stranger${i}@example.net`, `10.${i}.0.7`)
    await mail.sink.waitFor(
      () => mail.sink.received.length + mail.sink.refused.length >= 25,
      'the 25 confirmations',
    )
    expect(mail.sink.refused).toHaveLength(2)

    // Five from one IPv6 /64, all at addresses that answer 550: that network's confirmations pause.
    for (let i = 0; i < 5; i++) await signUp(`nobody-v6-${i}@example.net`, `2001:db8:aa:bb::${10 + i}`)
    await mail.sink.waitFor(
      () => mail.server.output().includes('Confirmations paused for signups from 2001:db8:aa::/48 until '),
      'the network did not pause',
    )
    expect(mail.server.output(), 'shown as the log masks a network: its /48').not.toContain('2001:db8:aa:bb')
    // 7 bounces in 30 (23%, past 5% with at least 5), but from 3 networks: the lane goes on.
    const other = 'someone.else@example.org'
    await signUp(other, '198.51.100.7')
    await mail.sink.waitFor(() => mail.sink.countFor(other) === 1, "another network's confirmation, at once")
    const held = 'neighbour@example.org'
    await signUp(held, '2001:db8:aa:bb::99')
    await sleep(500)
    expect(mail.sink.countFor(held), "the paused network's next signup waits").toBe(0)
    expect(mail.server.output()).not.toContain('Sending paused')

    const report = await runCli(mail.server.env, 'deliveries')
    const until =
      /Confirmations from 2001:db8:aa::\/48 are paused since \S+, until (\S+): hard bounces are 100\.0% of its last 5 confirmations \(5\), past MAIL_PAUSE_BOUNCE_RATE 0\.05/.exec(
        report.stdout,
      )?.[1]
    expect(until, report.stdout).toBeDefined()
    expect(report.stdout).not.toContain('2001:db8:aa:bb')
    expect(report.stdout).not.toContain('Confirmations are paused')
    // The owner's own terminal lists the queued message in full: due when the pause ends, by itself.
    expect(report.stdout).toMatch(
      new RegExp(`pending  confirmation  \\S+  ${held}  attempts 0  next ${until?.slice(0, 19)}`),
    )
    const hours = (Date.parse(until ?? '') - Date.now()) / 3_600_000
    expect(hours).toBeGreaterThan(23.9)
    expect(hours).toBeLessThanOrEqual(24)
    // The studio's send-health banner reads the same, masked alike.
    const studio = await startStudioProcess(mail.server.env)
    try {
      const response = await fetch(`${studio.origin}/api/send-health`, {
        headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
      })
      const health = (await response.json()) as SendHealth
      expect(health.confirmations.paused).toBeUndefined()
      expect(health.confirmations.pausedNetworks).toEqual([
        {
          network: '2001:db8:aa::/48',
          at: expect.any(String),
          until,
          reason: expect.stringMatching(/^hard bounces are 100\.0%/),
        },
      ])
    } finally {
      await studio.stop()
    }

    // Bounces from two networks more: five networks, and the whole lane pauses.
    await signUp('nobody-a@example.net', '192.0.2.9')
    await signUp('nobody-b@example.net', '198.18.0.9')
    await mail.sink.waitFor(
      () => mail.server.output().includes('Sending paused for confirmations: hard bounces are'),
      'confirmations did not pause',
    )
    const pausedLine = mail.server
      .output()
      .split('\n')
      .find((line) => line.includes('Sending paused for confirmations'))
    // The lane's counts and its networks are read from one snapshot (SendHealthGate.openLanes): read
    // apart, CI once read "(7 from 5 networks)", the networks' read having seen two bounces more.
    // With one of the two last bounces recorded it is 8 from 4 networks, no pause yet: so always 9.
    // How many messages are in the window is not fixed: under CI's load an accepted message's record
    // can wait past its lease (31 once, for 32 or 33), and the bounces and networks are the point.
    expect(pausedLine).toMatch(/hard bounces are \d+\.\d% of the last \d+ messages \(9 from 5 networks\)/)
    expect(mail.server.output()).not.toContain('Sending paused for invitations')

    // The lab's invitations go while confirmations wait.
    const late = 'late.stranger@example.net'
    await signUp(late, '203.0.113.50')
    expect((await inviteNamed(mail.database.db, lab, DOMAIN)).queued).toHaveLength(3)
    await mail.sink.waitFor(
      () => lab.every((email) => mail.sink.countFor(email) === 2),
      'the invitations while paused',
    )
    await sleep(500)
    expect(mail.sink.countFor(late), 'a confirmation waits').toBe(0)

    const paused = await runCli(mail.server.env, 'deliveries')
    expect(paused.stdout).toMatch(
      /Confirmations are paused since .*: hard bounces are \d+\.\d% of the last \d+ messages \(9 from 5 networks\), past MAIL_PAUSE_BOUNCE_RATE 0\.05/,
    )
    expect(paused.stdout).not.toContain('Invitations are paused')
    await receiver.waitFor(() => pausedWebhooks().length === 1, 'no mail.paused webhook')
    expect(pausedWebhooks()[0]).toMatch(/^confirmations: hard bounces are /)

    const resumed = await runCli(mail.server.env, 'deliveries', '--resume')
    expect(resumed.stdout).toContain('Confirmations resumed (they were paused: hard bounces are')
    expect(resumed.stdout).toContain(
      'Confirmations from 2001:db8:aa::/48 resumed (they were paused: hard bounces are',
    )
    await mail.sink.waitFor(() => mail.sink.countFor(late) === 1, 'the waiting confirmation after --resume')
    await mail.sink.waitFor(
      () => mail.sink.countFor(held) === 1,
      "the network's held confirmation after --resume",
    )
  })

  it('one complaint pauses nothing; a second, past the rate, pauses invitations', async () => {
    const members = Array.from({ length: 22 }, (_, i) => `member${i}@example.org`)
    await addMembers(members)
    expect((await inviteNamed(mail.database.db, members, DOMAIN)).queued).toHaveLength(22)
    await mail.sink.waitFor(
      () => members.every((email) => mail.sink.countFor(email) === 1),
      'the 22 invitations',
    )

    await complain('member0@example.org')
    const more = ['member.more0@example.org', 'member.more1@example.org']
    await addMembers(more)
    await inviteNamed(mail.database.db, more, DOMAIN)
    await mail.sink.waitFor(
      () => more.every((email) => mail.sink.countFor(email) === 1),
      'invitations after one complaint',
    )
    expect(mail.server.output()).not.toContain('Sending paused for invitations')

    await complain('member1@example.org')
    const last = ['member.last0@example.org', 'member.last1@example.org']
    await addMembers(last)
    await inviteNamed(mail.database.db, last, DOMAIN)
    await mail.sink.waitFor(
      () => mail.server.output().includes('Sending paused for invitations: complaints are'),
      'invitations did not pause',
    )
    await sleep(500)
    expect(last.map((email) => mail.sink.countFor(email))).toEqual([0, 0])
    await receiver.waitFor(() => pausedWebhooks().length === 2, 'no second mail.paused webhook')
    expect(pausedWebhooks()[1]).toMatch(
      /^invitations: complaints are \d+\.\d% of the last \d+ messages \(2\)/,
    )
    const report = await runCli(mail.server.env, 'deliveries')
    expect(report.stdout).toContain('Invitations are paused since')
    expect(report.stdout).not.toContain('Confirmations are paused')

    const resumed = await runCli(mail.server.env, 'deliveries', '--resume')
    expect(resumed.stdout).toContain('Invitations resumed (they were paused: complaints are')
    await mail.sink.waitFor(
      () => last.every((email) => mail.sink.countFor(email) === 1),
      'the rest after --resume',
    )
  })
})
