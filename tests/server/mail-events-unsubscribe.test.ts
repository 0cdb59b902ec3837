import { describe, expect } from 'vitest'
import { inviteNamed } from '../../server/waitlist/invite/invitations'
import { entryStatus } from '../support/entry-status'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { mailedEntry } from '../support/mailed-entry'
import { mailgunSignature, providerSecrets } from '../support/provider-signing'
import { postMailEvent, postmarkAuth } from '../support/requests'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * Each provider's unsubscribe is an unsubscribe: the entry becomes `unsubscribed` as through our
 * own link (entry.unsubscribed, mail still queued for it cancelled, never invited again, even with
 * --resend) and no bounce is counted toward the pause; only bounce-type suppressions make it
 * `bounced`. Each provider's documented payload, signed as it signs, on a real server over HTTP.
 */
const secrets = providerSecrets()
const { sendgrid } = secrets

const it = mailTest({ MAIL_PER_MINUTE: '0', ...secrets.env }, { webhook: true })

/** Mailed, with one more invitation queued for an hour from now. */
async function mailedWithMailQueued(mail: MailTestServer, email: string): Promise<void> {
  await mailedEntry(mail, email)
  await mail.database.db.query(
    `insert into private.mail_outbox (waitlist_id, kind, message_domain, run_at)
     select id, 'invitation', 'tessel-labs.example', now() + interval '1 hour' from public.waitlist where email = $1`,
    [email],
  )
}

/** Unsubscribed as the link leaves it: the status, the queued mail cancelled, no bounce counted, the webhook. */
async function expectUnsubscribed(
  mail: MailTestServer,
  receiver: WebhookReceiver,
  email: string,
): Promise<void> {
  expect(await entryStatus(mail.database.db, email)).toBe('unsubscribed')
  const messages = await mail.database.db.query<{ status: string; outcome: string | null }>(
    `select o.status, o.outcome from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
      where w.email = $1 order by o.id`,
    [email],
  )
  expect(messages).toEqual([
    { status: 'sent', outcome: null },
    { status: 'cancelled', outcome: null },
  ])
  const again = await inviteNamed(mail.database.db, [email], {
    resend: true,
    messageDomain: 'tessel-labs.example',
  })
  expect(again.queued).toEqual([])
  await receiver.waitFor(
    () =>
      receiver.delivered().some(({ body }) => body.type === 'entry.unsubscribed' && hasEmail(body, email)),
    `no entry.unsubscribed for ${email}`,
  )
}

const hasEmail = (body: Record<string, unknown>, email: string) =>
  (body.data as { email?: string } | undefined)?.email === email

describe('Postmark Subscription Change', () => {
  const basic = postmarkAuth(secrets.postmark)
  // Postmark's documented subscription change payload, the recipient and reason ours.
  const change = (email: string, reason: string, origin: string) =>
    JSON.stringify({
      RecordType: 'SubscriptionChange',
      MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
      ServerID: 123456,
      MessageStream: 'outbound',
      ChangedAt: new Date().toISOString(),
      Recipient: email,
      Origin: origin,
      SuppressSending: true,
      SuppressionReason: reason,
      Tag: 'my-tag',
      Metadata: { example: 'value', example_2: 'value' },
    })

  it('ManualSuppression by the Recipient is an unsubscribe, not a bounce', async ({ mail, receiver }) => {
    const email = 'ann.postmark-stop@example.com'
    await mailedWithMailQueued(mail, email)
    expect(
      (await postMailEvent(mail.server, 'postmark', change(email, 'ManualSuppression', 'Recipient'), basic))
        .status,
    ).toBe(200)
    await expectUnsubscribed(mail, receiver, email)
    expect(mail.server.output()).toMatch(/Mail events from postmark: 1 unsubscribed\n/)
  })

  it('ManualSuppression by the lab (Customer) stops mail too; HardBounce is bounced; SpamComplaint complained', async ({
    mail,
    statusOf,
  }) => {
    const manual = 'bob.postmark-stop@example.com'
    const hard = 'cy.postmark-stop@example.com'
    const spam = 'dee.postmark-stop@example.com'
    for (const email of [manual, hard, spam]) await mailedEntry(mail, email)
    expect(
      (await postMailEvent(mail.server, 'postmark', change(manual, 'ManualSuppression', 'Customer'), basic))
        .status,
    ).toBe(200)
    expect(
      (await postMailEvent(mail.server, 'postmark', change(hard, 'HardBounce', 'Recipient'), basic)).status,
    ).toBe(200)
    expect(
      (await postMailEvent(mail.server, 'postmark', change(spam, 'SpamComplaint', 'Recipient'), basic))
        .status,
    ).toBe(200)
    expect(await statusOf(manual)).toBe('unsubscribed')
    expect(await statusOf(hard)).toBe('bounced')
    expect(await statusOf(spam)).toBe('complained')
  })
})

describe('SendGrid unsubscribe and group_unsubscribe', () => {
  it('both unsubscribe; a drop for an unsubscribed address too; a drop for spam content changes nothing', async ({
    mail,
    receiver,
    statusOf,
  }) => {
    const all = 'eve.sendgrid-stop@example.com'
    const group = 'fay.sendgrid-stop@example.com'
    const dropped = 'gil.sendgrid-stop@example.com'
    const content = 'hal.sendgrid-stop@example.com'
    await mailedWithMailQueued(mail, all)
    for (const email of [group, dropped, content]) await mailedEntry(mail, email)
    const common = { timestamp: 1513299569, category: 'cat facts' }
    // SendGrid's documented events, the recipients ours.
    const body = JSON.stringify([
      {
        ...common,
        email: all,
        event: 'unsubscribe',
        sg_event_id: 'zz_BjPgU_5pS-J8vlfB1sg==',
        sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
      },
      {
        ...common,
        email: group,
        'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
        event: 'group_unsubscribe',
        sg_event_id: 'ahSCB7xYcXFb-hEaawsPRw==',
        sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
        useragent: 'Mozilla/4.0 (compatible; MSIE 6.1; Windows XP; .NET CLR 1.1.4322; .NET CLR 2.0.50727)',
        ip: '255.255.255.255',
        url: 'http://www.sendgrid.com/',
        asm_group_id: 10,
      },
      { ...common, email: dropped, event: 'dropped', reason: 'Unsubscribed Address', sg_event_id: 'drp-1' },
      { ...common, email: content, event: 'dropped', reason: 'Spam Content', sg_event_id: 'drp-2' },
    ])
    expect((await postMailEvent(mail.server, 'sendgrid', body, sendgrid.headers(body))).status).toBe(200)
    await expectUnsubscribed(mail, receiver, all)
    expect(await statusOf(group)).toBe('unsubscribed')
    expect(await statusOf(dropped)).toBe('unsubscribed')
    expect(await statusOf(content)).toBe('invited')
  })
})

describe('Mailgun unsubscribed', () => {
  it('the unsubscribed event, and a failure for an address Mailgun suppresses as unsubscribed', async ({
    mail,
    receiver,
    statusOf,
  }) => {
    const email = 'ivy.mailgun-stop@example.com'
    const suppressed = 'jo.mailgun-stop@example.com'
    await mailedWithMailQueued(mail, email)
    await mailedEntry(mail, suppressed)
    // Mailgun's documented unsubscribed event, the recipient ours.
    const unsubscribed = JSON.stringify({
      signature: mailgunSignature(secrets.mailgun),
      'event-data': {
        tags: ['my_tag_1', 'my_tag_2'],
        timestamp: 1521243339.873676,
        'recipient-domain': 'example.com',
        id: 'Ase7i2zsRYeDXztHGENqRA',
        campaigns: [],
        'user-variables': { my_var_1: 'Mailgun Variable #1', 'my-var-2': 'awesome' },
        'log-level': 'info',
        ip: '50.56.129.169',
        'client-info': { 'client-type': 'browser', 'client-os': 'OS X', 'device-type': 'desktop' },
        message: { headers: { 'message-id': '20130503182626.18666.16540@sandbox.mailgun.org' } },
        recipient: email,
        event: 'unsubscribed',
        geolocation: { country: 'US', region: 'CA', city: 'San Francisco' },
      },
    })
    expect((await postMailEvent(mail.server, 'mailgun', unsubscribed)).status).toBe(200)
    await expectUnsubscribed(mail, receiver, email)
    const failure = JSON.stringify({
      signature: mailgunSignature(secrets.mailgun),
      'event-data': {
        event: 'failed',
        id: 'G9Bn5sl1TC6nu79C8C0bwg',
        severity: 'permanent',
        reason: 'suppress-unsubscribe',
        recipient: suppressed,
        'delivery-status': { code: 607, description: 'Not delivering to a user who unsubscribed' },
      },
    })
    expect((await postMailEvent(mail.server, 'mailgun', failure)).status).toBe(200)
    expect(await statusOf(suppressed)).toBe('unsubscribed')
  })
})
