import { createHmac, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runningClusterUrl } from '../../server/db/embedded/embedded-cluster'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { mailedEntry } from '../support/mailed-entry'
import {
  mailgunSignature,
  now,
  sendgridKeys,
  standardHeaders,
  webhookSecret,
} from '../support/provider-signing'
import { postMailEvent } from '../support/requests'

/**
 * A captured signature cannot carry another event. Mailgun signs only a timestamp and a token, not
 * the event beside them: each token, and each signature, is accepted once, remembered in the
 * database until its timestamp is too old anyway, so a second server on the same database refuses
 * it too; every provider's timestamp is 1 to 12 digits, so signed bytes split at another place
 * do not pass as new (issue 48, item 1). The
 * providers that sign the body itself (SendGrid, Resend, generic Standard Webhooks) refuse a
 * signature moved to another body. Real servers over HTTP, the entries mailed through SMTP first.
 */
const MAILGUN = randomBytes(16).toString('hex')
const GENERIC = webhookSecret()
const RESEND = webhookSecret()
const sendgrid = sendgridKeys()

let mail: MailTestServer
let other: TestServer

beforeAll(async () => {
  const env = {
    MAIL_EVENTS_MAILGUN_KEY: MAILGUN,
    MAIL_EVENTS_SECRET: GENERIC,
    MAIL_EVENTS_SENDGRID_KEY: sendgrid.verificationKey,
    MAIL_EVENTS_RESEND_SECRET: RESEND,
  }
  mail = await startMailTestServer({ MAIL_PER_MINUTE: '0', ...env })
  // A second server on the same database, as behind a load balancer.
  const url = await runningClusterUrl(mail.server.dataDir)
  if (!url) throw new Error('the first server runs no embedded cluster')
  other = await startTestServer({ env: { DATABASE_URL: url, ...env } })
})

afterAll(async () => {
  await other?.cleanup()
  await mail?.close()
})

/** A Mailgun webhook: the signature object and an event about `email`. */
const mailgunEvent = (signature: object, email: string, event: Record<string, unknown>) =>
  JSON.stringify({
    signature,
    'event-data': {
      id: randomBytes(11).toString('base64url'),
      timestamp: Date.now() / 1000,
      recipient: email,
      'recipient-domain': 'example.com',
      ...event,
    },
  })
const delivered = { event: 'delivered', 'log-level': 'info', 'delivery-status': { code: 250 } }
const complained = { event: 'complained', 'log-level': 'warn' }
const failed = { event: 'failed', severity: 'permanent', reason: 'bounce', 'log-level': 'error' }

const tokens = async () => {
  const [row] = await mail.database.db.query<{ n: number }>(
    'select count(*)::int as n from private.mail_event_tokens',
  )
  return row?.n ?? 0
}

/** Mails `email`, then posts Mailgun's signed delivery of it: the signature it used, now seen. */
async function deliveredOnce(email: string) {
  await mailedEntry(mail, email)
  const signature = mailgunSignature(MAILGUN)
  expect(
    (await postMailEvent(mail.server, 'mailgun', mailgunEvent(signature, email, delivered))).status,
  ).toBe(200)
  return signature
}

describe('Mailgun: a token is accepted once', () => {
  it('a signature seen on a delivery cannot carry a complaint, here or on another server of the database', async () => {
    const email = 'ann.replay@example.com'
    const captured = await deliveredOnce(email)

    const forged = mailgunEvent(captured, email, complained)
    const replayed = await postMailEvent(mail.server, 'mailgun', forged)
    expect(replayed.status).toBe(401)
    expect((await replayed.json()).hint).toBe('this signature was used before: a replay changes nothing')
    expect((await postMailEvent(other, 'mailgun', forged)).status).toBe(401)
    expect(await entryStatus(mail.database.db, email)).toBe('invited')

    // Seen first by the other server: refused by this one.
    const elsewhere = mailgunSignature(MAILGUN)
    expect((await postMailEvent(other, 'mailgun', mailgunEvent(elsewhere, email, delivered))).status).toBe(
      200,
    )
    expect((await postMailEvent(mail.server, 'mailgun', mailgunEvent(elsewhere, email, failed))).status).toBe(
      401,
    )
    expect(await entryStatus(mail.database.db, email)).toBe('invited')
    expect(mail.server.output()).toContain('Mail events from mailgun refused: this signature was used before')

    // A signature of its own still works.
    const fresh = mailgunSignature(MAILGUN)
    expect((await postMailEvent(mail.server, 'mailgun', mailgunEvent(fresh, email, complained))).status).toBe(
      200,
    )
    expect(await entryStatus(mail.database.db, email)).toBe('complained')
  })

  it('a token whose leading "e0" moves into the timestamp is the same signature: refused, and nothing changes', async () => {
    const email = 'eve.split@example.com'
    await mailedEntry(mail, email)
    // Captured: a delivery whose token happens to start with "e0", signed as Mailgun signs.
    const captured = mailgunSignature(MAILGUN, now(), `e0${randomBytes(24).toString('hex')}`)
    expect(
      (await postMailEvent(mail.server, 'mailgun', mailgunEvent(captured, email, delivered))).status,
    ).toBe(200)
    // The same bytes signed, split elsewhere: Number("1795882580e0") is the same time.
    const split = { ...captured, timestamp: `${captured.timestamp}e0`, token: captured.token.slice(2) }
    expect(
      createHmac('sha256', MAILGUN)
        .update(split.timestamp + split.token)
        .digest('hex'),
    ).toBe(captured.signature)
    const moved = await postMailEvent(mail.server, 'mailgun', mailgunEvent(split, email, complained))
    expect(moved.status).toBe(401)
    expect(await entryStatus(mail.database.db, email)).toBe('invited')
    // And the plain replay, as before.
    const replayed = await postMailEvent(mail.server, 'mailgun', mailgunEvent(captured, email, complained))
    expect(replayed.status).toBe(401)
    expect((await replayed.json()).hint).toBe('this signature was used before: a replay changes nothing')
    expect(await entryStatus(mail.database.db, email)).toBe('invited')
    const [told] = await mail.database.db.query<{ n: number }>(
      `select count(*)::int as n from private.entry_events e join public.waitlist w on w.id = e.waitlist_id
        where w.email = $1 and e.event = 'complained'`,
      [email],
    )
    expect(told?.n).toBe(0)
  })

  it('tokens are kept until their timestamp is too old to pass, and deleted as new ones arrive', async () => {
    const email = 'bea.replay@example.com'
    const signature = await deliveredOnce(email)
    const [kept] = await mail.database.db.query<{ seconds: number }>(
      `select extract(epoch from expires_at)::int - $1::int as seconds from private.mail_event_tokens
        order by expires_at desc limit 1`,
      [Number(signature.timestamp)],
    )
    expect(kept?.seconds).toBe(300)
    expect(await tokens()).toBeGreaterThan(1)
    // Every token so far past its time, as five minutes later:
    await mail.database.db.query(
      `update private.mail_event_tokens set expires_at = now() - interval '1 second'`,
    )
    const next = mailgunSignature(MAILGUN)
    expect((await postMailEvent(mail.server, 'mailgun', mailgunEvent(next, email, delivered))).status).toBe(
      200,
    )
    expect(await tokens(), 'its token and its signature').toBe(2)
  })
})

describe('every provider’s timestamp: digits only, 1 to 12 of them, read before anything else', () => {
  // Signed as each provider signs, with a timestamp that Number() or parseInt() reads as now.
  const loose = (seconds: number) => [
    `${seconds}e0`,
    `${seconds}.0`,
    `+${seconds}`,
    `0x${seconds.toString(16)}`,
  ]

  it('Mailgun, SendGrid, Resend and generic Standard Webhooks refuse one that is not', async () => {
    const email = 'fay.loose@example.com'
    await mailedEntry(mail, email)
    for (const timestamp of loose(now())) {
      const signed = mailgunSignature(MAILGUN, timestamp)
      const mailgun = await postMailEvent(mail.server, 'mailgun', mailgunEvent(signed, email, complained))
      expect([timestamp, mailgun.status]).toEqual([timestamp, 401])
      expect((await mailgun.json()).hint).toBe('the Mailgun timestamp is not 1 to 12 digits')

      const batch = JSON.stringify([
        { email, event: 'spamreport', sg_event_id: `spm-${timestamp}`, timestamp: 1 },
      ])
      const sendgridAnswer = await postMailEvent(
        mail.server,
        'sendgrid',
        batch,
        sendgrid.headers(batch, timestamp),
      )
      expect([timestamp, sendgridAnswer.status]).toEqual([timestamp, 401])

      // Standard Webhooks (and Svix) sign the timestamp as their library reads it: parseInt.
      const complaint = JSON.stringify({ type: 'complaint', email })
      const standard = { ...standardHeaders(GENERIC, complaint), 'webhook-timestamp': timestamp }
      const generic = await postMailEvent(mail.server, 'generic', complaint, standard)
      expect([timestamp, generic.status]).toEqual([timestamp, 401])

      const resendBody = JSON.stringify({ type: 'email.complained', data: { to: [email] } })
      const svix = standardHeaders(RESEND, resendBody, { prefix: 'svix' })
      const resend = await postMailEvent(mail.server, 'resend', resendBody, {
        ...svix,
        'svix-timestamp': timestamp,
      })
      expect([timestamp, resend.status]).toEqual([timestamp, 401])
    }
    expect(await entryStatus(mail.database.db, email)).toBe('invited')
    expect(mail.server.output()).toContain(
      'Mail events from generic refused: the Standard Webhooks timestamp is not 1 to 12 digits',
    )
  })
})

describe('the providers that sign the body', () => {
  it('refuse a captured signature on another event (generic Standard Webhooks, SendGrid)', async () => {
    const email = 'cy.replay@example.com'
    await mailedEntry(mail, email)
    const delivery = JSON.stringify({ type: 'bounce', email, bounce: 'soft', reason: '452 mailbox full' })
    const headers = standardHeaders(GENERIC, delivery)
    expect((await postMailEvent(mail.server, 'generic', delivery, headers)).status).toBe(200)
    const complaint = JSON.stringify({ type: 'complaint', email })
    expect((await postMailEvent(mail.server, 'generic', complaint, headers)).status).toBe(401)

    const batch = JSON.stringify([{ email, event: 'delivered', sg_event_id: 'dlv-1', timestamp: 1 }])
    const signed = sendgrid.headers(batch)
    expect((await postMailEvent(mail.server, 'sendgrid', batch, signed)).status).toBe(200)
    const report = JSON.stringify([{ email, event: 'spamreport', sg_event_id: 'spm-1', timestamp: 1 }])
    expect((await postMailEvent(mail.server, 'sendgrid', report, signed)).status).toBe(401)
    expect(await entryStatus(mail.database.db, email)).toBe('invited')
  })
})
