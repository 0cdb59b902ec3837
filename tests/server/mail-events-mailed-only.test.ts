import { randomBytes } from 'node:crypto'
import { describe, expect } from 'vitest'
import { insertStatus } from '../reliability/support'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { mailedEntry } from '../support/mailed-entry'
import { mailgunSignature, providerSecrets } from '../support/provider-signing'
import { postGenericEvent, postMailEvent } from '../support/requests'

/**
 * An event changes an entry only if the lab mailed that address: matched by our own Message-ID
 * when the provider returns it, else by the address within the last 30 days. Anything else is
 * acknowledged (200, so the provider stops retrying), counted as not-listed, and changes nothing.
 * A real server over HTTP, mailing through its SMTP server; events signed as each provider signs.
 */
const secrets = providerSecrets()
const { sendgrid } = secrets

const it = mailTest({ MAIL_PER_MINUTE: '0', ...secrets.env }, { webhook: true })

/** A Mailgun permanent failure for `email`, naming the message it is about by `messageId`. */
const mailgunFailure = (mail: MailTestServer, email: string, messageId: string) => {
  const body = JSON.stringify({
    signature: mailgunSignature(secrets.mailgun),
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
  return postMailEvent(mail.server, 'mailgun', body)
}

/** What a change would have left: status rows, remembered event ids, the lab's webhook events. */
const traces = (mail: MailTestServer) =>
  mail.database.db.query<{ statuses: number; events: number; hooks: number }>(
    `select (select count(*) from private.entry_status where status in ('bounced', 'complained'))::int as statuses,
            (select count(*) from private.mail_event_ids)::int as events,
            (select count(*) from private.webhook_deliveries where event in ('entry.bounced', 'entry.complained'))::int as hooks`,
  )

/** Makes every message sent to `email` `days` old, as if the test ran that much later. */
const age = (mail: MailTestServer, email: string, days: number) =>
  mail.database.db.query(
    `update private.mail_outbox set sent_at = sent_at - make_interval(days => $2)
      where waitlist_id = (select id from public.waitlist where email = $1)`,
    [email, days],
  )

describe('events about addresses the lab never mailed', () => {
  it('a signed hard bounce and a SendGrid spamreport for listed, never-mailed addresses: 200, not-listed, nothing changes', async ({
    mail,
    statusOf,
  }) => {
    const bounced = 'ann.unmailed@example.com'
    const reported = 'bob.unmailed@example.com'
    for (const email of [bounced, reported]) expect(await insertStatus(mail.server, email)).toBe(201)
    const before = await traces(mail)

    const hard = await postGenericEvent(mail.server, secrets.generic, {
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
    expect((await postMailEvent(mail.server, 'sendgrid', batch, sendgrid.headers(batch))).status).toBe(200)

    expect(await statusOf(bounced)).toBe('waiting')
    expect(await statusOf(reported)).toBe('waiting')
    expect(await traces(mail)).toEqual(before)
    expect(mail.server.output()).toMatch(/Mail events from generic: 1 not-listed\n/)
    expect(mail.server.output()).toMatch(/Mail events from sendgrid: 1 not-listed\n/)
  })

  it("our Message-ID of another address's message does not make an unmailed address bounced", async ({
    mail,
    statusOf,
  }) => {
    const mailed = 'cy.mailed@example.com'
    const stranger = 'dee.unmailed@example.com'
    const messageId = await mailedEntry(mail, mailed)
    expect(await insertStatus(mail.server, stranger)).toBe(201)
    expect((await mailgunFailure(mail, stranger, messageId)).status).toBe(200)
    expect(await statusOf(stranger)).toBe('waiting')
    expect(await statusOf(mailed)).toBe('invited')
  })
})

describe('events about addresses the lab mailed', () => {
  it('by address: within 30 days of the message, not after', async ({ mail, statusOf }) => {
    const recent = 'eve.mailed@example.com'
    const old = 'fay.mailed@example.com'
    await mailedEntry(mail, recent)
    await mailedEntry(mail, old)
    await age(mail, recent, 29)
    await age(mail, old, 31)
    expect(
      (
        await postGenericEvent(mail.server, secrets.generic, {
          type: 'bounce',
          email: recent,
          bounce: 'hard',
        })
      ).status,
    ).toBe(200)
    expect(
      (await postGenericEvent(mail.server, secrets.generic, { type: 'complaint', email: old })).status,
    ).toBe(200)
    expect(await statusOf(recent)).toBe('bounced')
    expect(await statusOf(old)).toBe('invited')
  })

  it('by our own Message-ID, however old the message', async ({ mail, statusOf }) => {
    const email = 'gil.mailed@example.com'
    const messageId = await mailedEntry(mail, email)
    await age(mail, email, 90)
    expect((await mailgunFailure(mail, email, messageId)).status).toBe(200)
    expect(await statusOf(email)).toBe('bounced')
    const [message] = await mail.database.db.query<{ outcome: string }>(
      `select outcome from private.mail_outbox where uuid = $1::uuid`,
      [/^<([^@]+)@/.exec(messageId)?.[1]],
    )
    expect(message?.outcome).toBe('hard')
  })
})
