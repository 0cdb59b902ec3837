import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { startStudioProcess } from '../../harness/studio-process'
import { runCli } from '../../harness/waitlist-cli'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { mailedEntry } from '../support/mailed-entry'
import {
  mailgunSignature,
  now,
  sendgridKeys,
  standardHeaders,
  webhookSecret,
} from '../support/provider-signing'
import { postMailEvent } from '../support/requests'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * POST /mail-events/{provider} on a real server, with each provider's documented payloads signed
 * as that provider signs them (keys made here): what they do to the entries, and that forged,
 * stale and wrong-provider events are refused and change nothing. Each entry was first mailed by
 * the server through its SMTP server, as only an address the lab mailed can be changed. (SES, whose
 * certificates are fetched, is in mail-events-ses.test.ts.)
 */
const RESEND = webhookSecret()
const GENERIC = webhookSecret()
const POSTMARK = `postmark-hook:${randomBytes(12).toString('hex')}`
const MAILGUN = randomBytes(16).toString('hex')
const sendgrid = sendgridKeys()

let mail: MailTestServer
let receiver: WebhookReceiver

const it = mailTest(
  {
    MAIL_PER_MINUTE: '0',
    MAIL_EVENTS_RESEND_SECRET: RESEND,
    MAIL_EVENTS_POSTMARK_AUTH: POSTMARK,
    MAIL_EVENTS_SENDGRID_KEY: sendgrid.verificationKey,
    MAIL_EVENTS_MAILGUN_KEY: MAILGUN,
    MAIL_EVENTS_SECRET: GENERIC,
  },
  { webhook: true },
)

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail: started, receiver: listening }) => {
  mail = started
  receiver = listening
})

/** On the list, and sent an invitation by the server. */
async function mailed(email: string): Promise<string> {
  await mailedEntry(mail, email)
  return email
}

/** The entry's status and the soft bounces counted toward it. */
async function statusAndBounces(email: string): Promise<{ status: string; softBounces: number } | undefined> {
  const [row] = await mail.database.db.query<{ status: string; softBounces: number }>(
    `select coalesce(s.status, 'waiting') as status, coalesce(s.soft_bounces, 0)::int as "softBounces"
       from public.waitlist w left join private.entry_status s on s.waitlist_id = w.id where w.email = $1`,
    [email],
  )
  return row
}

describe('Resend (Svix signature)', () => {
  // Resend's documented email.bounced payload, the recipient ours.
  const bounced = (to: string) =>
    JSON.stringify({
      type: 'email.bounced',
      created_at: '2024-11-22T23:41:12.126Z',
      data: {
        created_at: '2024-11-22T23:41:11.894719+00:00',
        email_id: '56761188-7520-42d8-8898-ff6fc54ce618',
        from: 'Acme <onboarding@resend.dev>',
        to: [to],
        subject: 'Sending this example',
        bounce: {
          message:
            "The recipient's email address is on the suppression list because it has a recent history of producing hard bounces.",
          subType: 'Suppressed',
          type: 'Permanent',
        },
      },
    })

  it('a permanent bounce makes the entry bounced, once; the same event again changes nothing', async () => {
    const email = await mailed('ada.resend@example.com')
    const body = bounced(email)
    const headers = standardHeaders(RESEND, body, { prefix: 'svix', id: 'msg_resend_bounce_1' })
    expect((await postMailEvent(mail.server, 'resend', body, headers)).status).toBe(200)
    expect(await statusAndBounces(email)).toEqual({ status: 'bounced', softBounces: 0 })
    await receiver.waitFor(
      () => receiver.delivered().some(({ body }) => body.type === 'entry.bounced'),
      'no entry.bounced webhook',
    )
    // Resent by the provider: accepted, and no second entry.bounced.
    expect((await postMailEvent(mail.server, 'resend', body, headers)).status).toBe(200)
    const [row] = await mail.database.db.query<{ n: number }>(
      `select count(*)::int as n from private.webhook_deliveries where event = 'entry.bounced'`,
    )
    expect(row?.n).toBe(1)
  })

  it('a complaint makes the entry complained; a forged or stale signature changes nothing', async () => {
    const email = await mailed('bob.resend@example.com')
    const body = JSON.stringify({
      type: 'email.complained',
      created_at: '2024-11-22T23:41:12.126Z',
      data: {
        email_id: '56761188-7520-42d8-8898-ff6fc54ce618',
        to: [email],
        subject: 'Sending this example',
      },
    })
    const forged = standardHeaders(webhookSecret(), body, { prefix: 'svix' })
    expect((await postMailEvent(mail.server, 'resend', body, forged)).status).toBe(401)
    const stale = standardHeaders(RESEND, body, { prefix: 'svix', at: new Date(Date.now() - 6 * 60_000) })
    expect((await postMailEvent(mail.server, 'resend', body, stale)).status).toBe(401)
    // The right signature, posted to another provider's route.
    expect((await postMailEvent(mail.server, 'generic', body, standardHeaders(RESEND, body))).status).toBe(
      401,
    )
    expect((await statusAndBounces(email))?.status).toBe('invited')
    expect(
      (await postMailEvent(mail.server, 'resend', body, standardHeaders(RESEND, body, { prefix: 'svix' })))
        .status,
    ).toBe(200)
    expect((await statusAndBounces(email))?.status).toBe('complained')
  })
})

describe('Postmark (HTTP Basic auth)', () => {
  const bounce = (email: string, type: string, id: number) =>
    JSON.stringify({
      RecordType: 'Bounce',
      MessageStream: 'outbound',
      ID: id,
      Type: type,
      TypeCode: type === 'HardBounce' ? 1 : 4096,
      Name: type === 'HardBounce' ? 'Hard bounce' : 'Soft bounce',
      Tag: 'Test',
      MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
      ServerID: 23,
      Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
      Details: 'Test bounce details',
      Email: email,
      From: 'sender@example.com',
      BouncedAt: '2019-11-05T16:33:54.9070259Z',
      DumpAvailable: true,
      Inactive: true,
      CanActivate: true,
      Subject: 'Test subject',
    })
  const basic = (auth: string) => ({ authorization: `Basic ${Buffer.from(auth).toString('base64')}` })

  it('three soft bounces in a row make the entry bounced; a wrong password changes nothing', async () => {
    const email = await mailed('cy.postmark@example.com')
    expect(
      (
        await postMailEvent(
          mail.server,
          'postmark',
          bounce(email, 'SoftBounce', 101),
          basic('postmark-hook:wrong'),
        )
      ).status,
    ).toBe(401)
    expect((await postMailEvent(mail.server, 'postmark', bounce(email, 'SoftBounce', 101))).status).toBe(401)
    expect(await statusAndBounces(email)).toEqual({ status: 'invited', softBounces: 0 })
    expect(
      (await postMailEvent(mail.server, 'postmark', bounce(email, 'SoftBounce', 101), basic(POSTMARK)))
        .status,
    ).toBe(200)
    expect(
      (await postMailEvent(mail.server, 'postmark', bounce(email, 'SoftBounce', 101), basic(POSTMARK)))
        .status,
    ).toBe(200)
    expect(await statusAndBounces(email)).toEqual({ status: 'invited', softBounces: 1 })
    await postMailEvent(mail.server, 'postmark', bounce(email, 'Transient', 102), basic(POSTMARK))
    expect(await statusAndBounces(email)).toEqual({ status: 'invited', softBounces: 2 })
    await postMailEvent(mail.server, 'postmark', bounce(email, 'SoftBounce', 103), basic(POSTMARK))
    expect((await statusAndBounces(email))?.status).toBe('bounced')
  })

  it('a spam complaint makes the entry complained; an address not listed adds nothing', async () => {
    const email = await mailed('dee.postmark@example.com')
    const complaint = (to: string) =>
      JSON.stringify({
        RecordType: 'SpamComplaint',
        MessageStream: 'outbound',
        ID: 42,
        Type: 'SpamComplaint',
        TypeCode: 512,
        Name: 'Spam complaint',
        MessageID: '00000000-0000-0000-0000-000000000000',
        Details: 'Test spam complaint details',
        Email: to,
        From: 'sender@example.com',
        BouncedAt: '2019-11-05T16:33:54.9070259Z',
        Subject: 'Test subject',
      })
    const before = await mail.database.db.query<{ n: number }>(
      'select (select count(*) from private.entry_status)::int + (select count(*) from private.mail_event_ids)::int as n',
    )
    expect(
      (await postMailEvent(mail.server, 'postmark', complaint('nobody.listed@example.com'), basic(POSTMARK)))
        .status,
    ).toBe(200)
    const after = await mail.database.db.query<{ n: number }>(
      'select (select count(*) from private.entry_status)::int + (select count(*) from private.mail_event_ids)::int as n',
    )
    expect(after).toEqual(before)
    expect((await postMailEvent(mail.server, 'postmark', complaint(email), basic(POSTMARK))).status).toBe(200)
    expect((await statusAndBounces(email))?.status).toBe('complained')
  })
})

describe('SendGrid (ECDSA P-256 signature)', () => {
  it('bounce, dropped and spamreport from its documented batch; a stale or forged batch changes nothing', async () => {
    const bounced = await mailed('eve.sendgrid@example.com')
    const dropped = await mailed('fay.sendgrid@example.com')
    const reported = await mailed('gil.sendgrid@example.com')
    const event = (email: string, fields: Record<string, string>) => ({
      email,
      timestamp: 1513299569,
      'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
      category: 'cat facts',
      sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
      ...fields,
    })
    const body = JSON.stringify([
      event(bounced, {
        event: 'bounce',
        sg_event_id: '6g4ZI7SA-xmRDv57GoPIPw==',
        reason: '500 unknown recipient',
        status: '5.0.0',
        type: 'bounce',
      }),
      event(dropped, {
        event: 'dropped',
        sg_event_id: 'zmzJhfJgAfUSOW80yEbPyw==',
        reason: 'Bounced Address',
        status: '5.0.0',
      }),
      event(reported, { event: 'spamreport', sg_event_id: '37nvH5QBz858KGVYCM4uOA==' }),
      event(bounced, { event: 'open', sg_event_id: 'FOTFFO0ecsBE-zxFXfs6WA==', useragent: 'Mozilla/4.0' }),
    ])
    expect(
      (await postMailEvent(mail.server, 'sendgrid', body, sendgrid.headers(body, now() - 301))).status,
    ).toBe(401)
    expect((await postMailEvent(mail.server, 'sendgrid', body, sendgridKeys().headers(body))).status).toBe(
      401,
    )
    const tampered = body.replace('spamreport', 'delivered')
    expect((await postMailEvent(mail.server, 'sendgrid', tampered, sendgrid.headers(body))).status).toBe(401)
    expect((await statusAndBounces(bounced))?.status).toBe('invited')
    expect((await postMailEvent(mail.server, 'sendgrid', body, sendgrid.headers(body))).status).toBe(200)
    expect((await statusAndBounces(bounced))?.status).toBe('bounced')
    expect((await statusAndBounces(dropped))?.status).toBe('bounced')
    expect((await statusAndBounces(reported))?.status).toBe('complained')
  })
})

describe('Mailgun (HMAC of timestamp and token)', () => {
  const failed = (email: string, signature: object, severity = 'permanent') =>
    JSON.stringify({
      signature,
      'event-data': {
        event: 'failed',
        id: randomBytes(11).toString('base64url'),
        timestamp: 1521233195.375624,
        'log-level': 'error',
        severity,
        reason: 'suppress-bounce',
        recipient: email,
        'recipient-domain': 'example.com',
        message: {
          headers: {
            to: `Alice <${email}>`,
            'message-id': '20130503192659.13651.20287@sandbox.mailgun.org',
            from: 'Bob <bob@example.com>',
            subject: 'Test permanent_fail webhook',
          },
          attachments: [],
          size: 111,
        },
        'delivery-status': {
          'attempt-no': 1,
          message: '',
          code: 605,
          description: 'Not delivering to previously bounced address',
          'session-seconds': 0,
        },
      },
    })

  it('a permanent failure makes the entry bounced; a wrong key or an old timestamp changes nothing', async () => {
    const email = await mailed('hal.mailgun@example.com')
    expect(
      (await postMailEvent(mail.server, 'mailgun', failed(email, mailgunSignature('not-the-key-at-all'))))
        .status,
    ).toBe(401)
    expect(
      (await postMailEvent(mail.server, 'mailgun', failed(email, mailgunSignature(MAILGUN, now() - 600))))
        .status,
    ).toBe(401)
    expect((await statusAndBounces(email))?.status).toBe('invited')
    expect(
      (await postMailEvent(mail.server, 'mailgun', failed(email, mailgunSignature(MAILGUN)))).status,
    ).toBe(200)
    expect((await statusAndBounces(email))?.status).toBe('bounced')
  })

  it('a complaint makes the entry complained', async () => {
    const email = await mailed('ivy.mailgun@example.com')
    const body = JSON.stringify({
      signature: mailgunSignature(MAILGUN),
      'event-data': {
        event: 'complained',
        id: 'ncV2XwymRUKbPek_MIM-Gw',
        timestamp: 1521233123.501324,
        recipient: email,
      },
    })
    expect((await postMailEvent(mail.server, 'mailgun', body)).status).toBe(200)
    expect((await statusAndBounces(email))?.status).toBe('complained')
  })
})

describe('generic (Standard Webhooks)', () => {
  it('the JSON events: hard bounce, soft bounce, complaint', async () => {
    const hard = await mailed('jo.generic@example.com')
    const soft = await mailed('kim.generic@example.com')
    const body = (event: object) => JSON.stringify(event)
    const send = (event: object) =>
      postMailEvent(mail.server, 'generic', body(event), standardHeaders(GENERIC, body(event)))
    expect(
      (await send({ type: 'bounce', email: hard, bounce: 'hard', reason: '550 5.1.1 no such user' })).status,
    ).toBe(200)
    expect(
      (await send({ type: 'bounce', email: soft, bounce: 'soft', reason: '452 mailbox full' })).status,
    ).toBe(200)
    expect(await statusAndBounces(hard)).toEqual({ status: 'bounced', softBounces: 0 })
    expect(await statusAndBounces(soft)).toEqual({ status: 'invited', softBounces: 1 })
    expect((await send({ type: 'complaint', email: soft })).status).toBe(200)
    expect((await statusAndBounces(soft))?.status).toBe('complained')
    expect((await send({ type: 'unsubscribe', email: hard })).status).toBe(400)
  })

  it('an RFC 3464 bounce as Postfix writes it, piped with curl', async () => {
    const email = await mailed('lee.generic@example.com')
    const dsn = [
      'From: MAILER-DAEMON@mx.lab.example (Mail Delivery System)',
      'To: beta@lab.example',
      'Subject: Undelivered Mail Returned to Sender',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B1"',
      '',
      '--B1',
      'Content-Type: text/plain; charset=us-ascii',
      '',
      'This is the mail system at host mx.lab.example.',
      '',
      '--B1',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.lab.example',
      'X-Postfix-Queue-ID: 4ZAB1C2D3E',
      'Arrival-Date: Mon, 25 Nov 2024 10:00:00 +0000 (UTC)',
      '',
      `Final-Recipient: rfc822; ${email}`,
      `Original-Recipient: rfc822;${email}`,
      'Action: failed',
      'Status: 5.1.1',
      'Remote-MTA: dns; mx.example.com',
      'Diagnostic-Code: smtp; 550 5.1.1 <lee.generic@example.com>: Recipient address rejected: User unknown',
      '',
      '--B1',
      'Content-Type: text/rfc822-headers',
      '',
      'Message-ID: <0b1c2d3e-1111-4222-8333-944455556666@lab.example>',
      `To: ${email}`,
      'Subject: Your beta invitation',
      '',
      '--B1--',
      '',
    ].join('\r\n')
    const headers = { ...standardHeaders(GENERIC, dsn), 'content-type': 'message/rfc822' }
    expect(
      (await postMailEvent(mail.server, 'generic', dsn, { ...headers, 'webhook-signature': 'v1,AAAA' }))
        .status,
    ).toBe(401)
    expect((await postMailEvent(mail.server, 'generic', dsn, headers)).status).toBe(200)
    expect((await statusAndBounces(email))?.status).toBe('bounced')
  })
})

describe('generic: a bounce message postal-mime cannot read', () => {
  it('MIME nested 300 levels deep: 400 and one log line, no stack trace', async () => {
    const depth = 300
    const opening = Array.from(
      { length: depth },
      (_, i) => `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n`,
    )
    const closing = Array.from({ length: depth }, (_, i) => `\r\n--n${depth - 1 - i}--`)
    const nested = `From: MAILER-DAEMON@mx.lab.example\r\n${opening.join('')}Content-Type: text/plain\r\n\r\nx${closing.join('')}\r\n`
    const logged = mail.server.output().length
    const headers = { ...standardHeaders(GENERIC, nested), 'content-type': 'message/rfc822' }
    const response = await postMailEvent(mail.server, 'generic', nested, headers)
    expect(response.status).toBe(400)
    expect((await response.json()).hint).toMatch(/^the bounce message cannot be read/)
    const lines = mail.server.output().slice(logged).split('\n')
    expect(lines.filter((line) => line.includes('Mail events from generic'))).toEqual([
      'Mail events from generic refused: the bounce message cannot be read: MIME nested too deep, or malformed',
    ])
    expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([])
  })
})

describe('the Postfix pipe in docs/mail-setup.md', () => {
  it('signs a bounce with sh, openssl and curl as the guide writes it, and the entry is bounced', async () => {
    const guide = await readFile(new URL('../../docs/mail-setup.md', import.meta.url), 'utf8')
    const script =
      /```sh\n(#!\/bin\/sh\n# Signs the bounce[\s\S]*?)```/
        .exec(guide)?.[1]
        ?.replace('https://YOUR-SITE', mail.server.url) ?? ''
    expect(script).toContain('curl')
    const email = await mailed('max.pipe@example.com')
    const dsn = [
      'From: MAILER-DAEMON@mx.lab.example',
      'Subject: Undelivered Mail Returned to Sender',
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B2"',
      '',
      '--B2',
      'Content-Type: message/delivery-status',
      '',
      'Reporting-MTA: dns; mx.lab.example',
      '',
      `Final-Recipient: rfc822; ${email}`,
      'Action: failed',
      'Status: 5.1.1',
      '',
      '--B2--',
      '',
    ].join('\n')
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        'sh',
        ['-c', script],
        { env: { ...process.env, MAIL_EVENTS_SECRET: GENERIC } },
        (error) => (error ? reject(error) : resolve()),
      )
      child.stdin?.end(dsn)
    })
    expect((await statusAndBounces(email))?.status).toBe('bounced')
  })
})

describe('the route', () => {
  it('a provider without its setting answers 404; an oversized body 413; no address in the log', async () => {
    expect((await postMailEvent(mail.server, 'ses', '{}')).status).toBe(404)
    expect((await postMailEvent(mail.server, 'brevo', '{}')).status).toBe(404)
    const huge = 'x'.repeat(1024 * 1024 + 1)
    expect((await postMailEvent(mail.server, 'generic', huge, standardHeaders(GENERIC, huge))).status).toBe(
      413,
    )
    expect(mail.server.output()).not.toMatch(
      /[a-z]+\.(resend|postmark|sendgrid|mailgun|generic)@example\.com/,
    )
    expect(mail.server.output()).toMatch(/Mail events from sendgrid: 2 bounced, 1 complained\n/)
  })

  it('export writes complained and import keeps it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mail-events-export-'))
    try {
      const file = join(dir, 'list.csv')
      expect((await runCli(mail.server.env, 'export', '--out', file)).code).toBe(0)
      expect(await readFile(file, 'utf8')).toMatch(
        /\r\nivy\.mailgun@example\.com,[^,]+,complained,,[^,]+,\d{4}-[^,]+Z,,,[^,]*,,,,,,[^,]+,api,,,,\r\n/,
      )
      const moved = join(dir, 'moved.csv')
      await writeFile(
        moved,
        'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at\r\n' +
          'moved.complained@example.com,2024-11-01T09:00:00.000000Z,complained,,,2024-11-02T09:00:00.000000Z,\r\n',
      )
      expect((await runCli(mail.server.env, 'import', moved)).code).toBe(0)
      expect((await statusAndBounces('moved.complained@example.com'))?.status).toBe('complained')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("the studio shows a pause's reason and resumes it, as deliveries --resume does", async () => {
    await mail.database.db.query(
      `update private.mail_health set paused_at = now(), pause_reason = 'complaints are 1.0% of the last 100 messages (1), past MAIL_PAUSE_COMPLAINT_RATE 0.003'`,
    )
    const studio = await startStudioProcess(mail.server.env)
    try {
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${studio.origin}${path}`, {
          ...init,
          headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
        }).then((response) => response.json())
      expect((await api('/api/send-health')).invitations.paused.reason).toMatch(/^complaints are 1\.0% /)
      expect(await api('/api/send-health/resume', { method: 'POST' })).toEqual({ resumed: true })
      expect((await api('/api/send-health')).invitations.paused).toBeUndefined()
      expect((await runCli(mail.server.env, 'deliveries')).stdout).not.toContain('are paused since')
    } finally {
      await studio.stop()
    }
  })
})
