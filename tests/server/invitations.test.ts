import type { ParsedMail } from 'mailparser'
import { Webhook } from 'standardwebhooks'
import { describe, expect } from 'vitest'
import { mailWords } from '../../contract/site-config'
import type { SmtpSink } from '../../harness/smtp-sink'
import { TEST_BETA_URL, type TestServer } from '../../harness/test-server'
import { loadApiKeys } from '../../server/auth/api-keys'
import type { OpenedDatabase } from '../../server/db/open-database'
import { checkInviteCode, linkKeys } from '../../server/mail/messages/link-seals'
import { inviteNext } from '../../server/waitlist/invite/invitations'
import { insertStatus } from '../reliability/support'
import { CONFIRMING, mailTest } from '../support/fixtures'
import { requestAccessOverMcp } from '../support/mcp-raw'
import type { WebhookReceiver } from '../support/webhook-receiver'

/**
 * The whole path on one server with CONFIRM_SIGNUPS on and a real SMTP server: signups by the three
 * ways in get a confirmation message, the links are followed over HTTP (GET shows, POST acts), an
 * invitation goes out with both parts and the RFC 8058 headers, and one-click unsubscribe works.
 */
const _FROM = 'Tessel Labs <beta@tessel-labs.example>'
const ada = 'ada.invite@example.com'
const bob = 'bob.invite@example.com'
const cy = 'cy.invite@example.com'

const SECRET = `whsec_${Buffer.alloc(32, 'invitation-events').toString('base64')}`

let sink: SmtpSink
let receiver: WebhookReceiver
let server: TestServer
let database: OpenedDatabase

const it = mailTest({ ...CONFIRMING, SIGNUP_WEBHOOK_SECRET: SECRET }, { webhook: true })

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail, receiver: listening }) => {
  ;({ sink, server, database } = mail)
  receiver = listening
})

/** The first message to `email` with this subject, once it has arrived. */
async function mailTo(email: string, subject: string): Promise<ParsedMail> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const parsed = await Promise.all(sink.received.filter((mail) => mail.to.includes(email)).map(sink.parse))
    const found = parsed.find((mail) => mail.subject === subject)
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no "${subject}" to ${email}: ${parsed.map((m) => m.subject)}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const linkIn = (mail: ParsedMail, path: string) => {
  const match = new RegExp(`https?://\\S+${path}\\?t=[A-Za-z0-9_-]+`).exec(mail.text ?? '')
  if (!match) throw new Error(`no ${path} link in:\n${mail.text}`)
  return match[0]
}

const oneClick = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  })

/** A header as it was sent (mailparser folds List-* headers into one parsed `list` object). */
const header = (mail: ParsedMail, name: string) =>
  mail.headerLines
    .find((line) => line.key === name)
    ?.line.replace(/^[^:]+:\s*/, '')
    .replace(/\r?\n\s+/g, ' ')

const lab = (text: string) => text.replaceAll('{lab}', 'Tessel Labs')

async function signUpThreeWays(): Promise<void> {
  expect(await insertStatus(server, ada)).toBe(201)
  const form = await fetch(`${server.url}/`, {
    method: 'POST',
    body: new URLSearchParams({ email: bob }),
    redirect: 'manual',
  })
  expect(form.headers.get('location')).toBe('/?waitlist=submitted')
  expect(await requestAccessOverMcp(server.url, cy)).toContain('"status":"submitted"')
}

describe('invitations with confirmation on, over real SMTP and HTTP', () => {
  it('confirms by POST only, invites with both parts and RFC 8058 headers, and unsubscribes in one click', async ({
    statusOf,
  }) => {
    await signUpThreeWays()
    const confirmSubject = lab(mailWords.confirmation.subject)
    const confirmations = await Promise.all([ada, bob, cy].map((email) => mailTo(email, confirmSubject)))
    expect(await statusOf(ada)).toBe('unconfirmed')
    // Unconfirmed entries are never picked.
    expect((await inviteNext(database.db, 10, { resend: false, messageDomain: 'x.example' })).queued).toEqual(
      [],
    )

    const confirmUrl = linkIn(confirmations[0] as ParsedMail, '/confirm')
    const page = await fetch(confirmUrl)
    expect(page.status).toBe(200)
    expect(await page.text()).toMatch(
      /<form method="post" action="\/confirm\?t=[^"]+"><input[^>]*><button type="submit">/,
    )
    expect(await statusOf(ada), 'a GET changes nothing').toBe('unconfirmed')
    expect((await fetch(confirmUrl, { method: 'POST' })).status).toBe(200)
    expect(await statusOf(ada)).toBe('waiting')

    const queued = await inviteNext(database.db, 10, { resend: false, messageDomain: 'tessel-labs.example' })
    expect(queued.queued.map((entry) => entry.email)).toEqual([ada])
    const invitation = await mailTo(ada, lab(mailWords.invitation.subject))
    await expectInvitation(invitation)

    const unsubscribeUrl = /^<(.+)>$/.exec(header(invitation, 'list-unsubscribe') ?? '')?.[1] ?? ''
    expect((await fetch(unsubscribeUrl)).status).toBe(200)
    expect(await statusOf(ada), 'a GET changes nothing').toBe('invited')
    const tampered = unsubscribeUrl.replace(/.(?=$)/, (char) => (char === 'A' ? 'B' : 'A'))
    expect((await oneClick(tampered)).status).toBe(400)
    expect(await statusOf(ada)).toBe('invited')
    expect((await oneClick(unsubscribeUrl)).status).toBe(200)
    expect((await oneClick(unsubscribeUrl)).status, 'idempotent').toBe(200)
    expect(await statusOf(ada)).toBe('unsubscribed')
    expect(server.output()).not.toContain(ada)
    await expectEvents()
  })
})

/** The CRM's view: every event for ada, signed as the signup webhook is (sent side by side, so in any order). */
async function expectEvents(): Promise<void> {
  const events = ['waitlist.signup', 'entry.confirmed', 'invitation.sent', 'entry.unsubscribed']
  const forAda = () =>
    receiver.requests.filter((request) => request.status === 204 && request.body.includes(`"email":"${ada}"`))
  await receiver.waitFor(() => forAda().length === events.length, 'four events for ada')
  const signer = new Webhook(SECRET)
  const bodies = forAda().map((request) =>
    signer.verify(request.body, request.headers as Record<string, string>),
  )
  const types = bodies.map((body) => (body as { type: string }).type)
  expect(types.sort()).toEqual([...events].sort())
  const unsubscribed = bodies.find((body) => (body as { type: string }).type === 'entry.unsubscribed')
  expect(unsubscribed).toMatchObject({ data: { email: ada, occurred_at: expect.stringMatching(/Z$/) } })
}

async function expectInvitation(mail: ParsedMail): Promise<void> {
  expect(mail.from?.text).toBe('"Tessel Labs" <beta@tessel-labs.example>')
  expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@tessel-labs\.example>$/)
  expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click')
  expect(header(mail, 'list-unsubscribe')).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\?t=[\w-]+>$/)
  expect(mail.text).toContain(mailWords.invitation.greeting)
  expect(mail.text).toContain(`${mailWords.unsubscribe}: http://127.0.0.1:`)
  const html = String(mail.html)
  expect(html).toContain(mailWords.invitation.button)
  expect(html).toContain(`>${mailWords.unsubscribe}</a>`)
  // Nothing to fetch when the message opens: no image, stylesheet, script or frame.
  expect(html).not.toMatch(/<(img|link|script|iframe|object)\b|url\(/i)
  const betaUrl = new URL(/href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '')
  expect(`${betaUrl.origin}${betaUrl.pathname}`).toBe(TEST_BETA_URL)
  const code = betaUrl.searchParams.get('invite') ?? ''
  const keys = linkKeys((await loadApiKeys({ dataDir: server.dataDir, databaseUrl: undefined })).secret)
  expect(checkInviteCode(keys.inviteCode, code)?.invitationId).toBe(mail.messageId?.slice(1, 37))
  expect(mail.text).toContain(code)
  const altered = `${code.slice(0, 10)}${code[10] === 'A' ? 'B' : 'A'}${code.slice(11)}`
  expect(checkInviteCode(keys.inviteCode, altered)).toBeUndefined()
}
