import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertStatus } from '../reliability/support'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { mailedEntry } from '../support/mailed-entry'
import { mailgunSignature, sendgridKeys, standardHeaders, webhookSecret } from '../support/provider-signing'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

/**
 * An event changes an entry only if the lab mailed that address: matched by our own Message-ID
 * when the provider returns it, else by the address within the last 30 days. Anything else is
 * acknowledged (200, so the provider stops retrying), counted as not-listed, and changes nothing.
 * A real server over HTTP, mailing through its SMTP server; events signed as each provider signs.
 */
const GENERIC = webhookSecret()
const MAILGUN = randomBytes(16).toString('hex')
const sendgrid = sendgridKeys()

let mail: MailTestServer
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  mail = await startMailTestServer({
    MAIL_PER_MINUTE: '0',
    MAIL_EVENTS_SECRET: GENERIC,
    MAIL_EVENTS_MAILGUN_KEY: MAILGUN,
    MAIL_EVENTS_SENDGRID_KEY: sendgrid.verificationKey,
    SIGNUP_WEBHOOK_URL: receiver.url,
  })
})

afterAll(async () => {
  await mail?.close()
  await receiver?.close()
})

const post = (provider: string, body: string, headers: Record<string, string>) =>
  fetch(`${mail.server.url}/mail-events/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })

const generic = (event: object) => {
  const body = JSON.stringify(event)
  return post('generic', body, standardHeaders(GENERIC, body))
}

/** A Mailgun permanent failure for `email`, naming the message it is about by `messageId`. */
const mailgunFailure = (email: string, messageId: string) => {
  const body = JSON.stringify({
    signature: mailgunSignature(MAILGUN),
    'event-data': {
      event: 'failed',
      id: randomBytes(11).toString('base64url'),
      severity: 'permanent',
      reason: 'bounce',
      recipient: email,
      message: { headers: { 'message-id': messageId.replace(/^<|>$/g, '') } },
      'delivery-status': { code: 550, description: '550 5.1.1 mailbox unavailable' },
    },
  })
  return post('mailgun', body, {})
}

/** What a change would have left: status rows, remembered event ids, the lab's webhook events. */
const traces = () =>
  mail.database.db.query<{ statuses: number; events: number; hooks: number }>(
    `select (select count(*) from private.entry_status where status in ('bounced', 'complained'))::int as statuses,
            (select count(*) from private.mail_event_ids)::int as events,
            (select count(*) from private.webhook_deliveries where event in ('entry.bounced', 'entry.complained'))::int as hooks`,
  )

/** Makes every message sent to `email` `days` old, as if the test ran that much later. */
const age = (email: string, days: number) =>
  mail.database.db.query(
    `update private.mail_outbox set sent_at = sent_at - make_interval(days => $2)
      where waitlist_id = (select id from public.waitlist where email = $1)`,
    [email, days],
  )

describe('events about addresses the lab never mailed', () => {
  it('a signed hard bounce and a SendGrid spamreport for listed, never-mailed addresses: 200, not-listed, nothing changes', async () => {
    const bounced = 'ann.unmailed@example.com'
    const reported = 'bob.unmailed@example.com'
    for (const email of [bounced, reported]) expect(await insertStatus(mail.server, email)).toBe(201)
    const before = await traces()

    const hard = await generic({
      type: 'bounce',
      email: bounced,
      bounce: 'hard',
      reason: '550 5.1.1 no such user',
    })
    expect(hard.status).toBe(200)
    const batch = JSON.stringify([
      {
        email: reported,
        timestamp: 1513299569,
        event: 'spamreport',
        sg_event_id: '37nvH5QBz858KGVYCM4uOA==',
      },
    ])
    expect((await post('sendgrid', batch, sendgrid.headers(batch))).status).toBe(200)

    expect(await entryStatus(mail.database.db, bounced)).toBe('waiting')
    expect(await entryStatus(mail.database.db, reported)).toBe('waiting')
    expect(await traces()).toEqual(before)
    expect(mail.server.output()).toMatch(/Mail events from generic: 1 not-listed\n/)
    expect(mail.server.output()).toMatch(/Mail events from sendgrid: 1 not-listed\n/)
  })

  it("our Message-ID of another address's message does not make an unmailed address bounced", async () => {
    const mailed = 'cy.mailed@example.com'
    const stranger = 'dee.unmailed@example.com'
    const messageId = await mailedEntry(mail, mailed)
    expect(await insertStatus(mail.server, stranger)).toBe(201)
    expect((await mailgunFailure(stranger, messageId)).status).toBe(200)
    expect(await entryStatus(mail.database.db, stranger)).toBe('waiting')
    expect(await entryStatus(mail.database.db, mailed)).toBe('invited')
  })
})

describe('events about addresses the lab mailed', () => {
  it('by address: within 30 days of the message, not after', async () => {
    const recent = 'eve.mailed@example.com'
    const old = 'fay.mailed@example.com'
    await mailedEntry(mail, recent)
    await mailedEntry(mail, old)
    await age(recent, 29)
    await age(old, 31)
    expect((await generic({ type: 'bounce', email: recent, bounce: 'hard' })).status).toBe(200)
    expect((await generic({ type: 'complaint', email: old })).status).toBe(200)
    expect(await entryStatus(mail.database.db, recent)).toBe('bounced')
    expect(await entryStatus(mail.database.db, old)).toBe('invited')
  })

  it('by our own Message-ID, however old the message', async () => {
    const email = 'gil.mailed@example.com'
    const messageId = await mailedEntry(mail, email)
    await age(email, 90)
    expect((await mailgunFailure(email, messageId)).status).toBe(200)
    expect(await entryStatus(mail.database.db, email)).toBe('bounced')
    const [message] = await mail.database.db.query<{ outcome: string }>(
      `select outcome from private.mail_outbox where uuid = $1::uuid`,
      [/^<([^@]+)@/.exec(messageId)?.[1]],
    )
    expect(message?.outcome).toBe('hard')
  })
})
