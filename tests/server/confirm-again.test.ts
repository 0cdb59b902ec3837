import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mailWords } from '../../contract/site-config'
import type { SmtpSink } from '../../harness/smtp-sink'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import type { OpenedDatabase } from '../../server/db/open-database'
import { whyNotInvited } from '../../server/waitlist/invitations/entry-status'
import { entryStatus } from '../support/entry-status'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { requestAccessOverMcp } from '../support/mcp-raw'

/**
 * Confirmation that strangers cannot abuse (issue 30, item 4), on one server with CONFIRM_SIGNUPS
 * and a real SMTP server: a repeat signup of an unconfirmed address answers as before and sends the
 * confirmation again at most once an hour; unconfirmed entries expire after CONFIRM_EXPIRE_DAYS;
 * `invite --confirm` sends one on the owner's word. The clock is moved in the database.
 */
const SUBJECT = mailWords.confirmation.subject.replaceAll('{lab}', 'Tessel Labs')

let mail: MailTestServer
let sink: SmtpSink
let server: TestServer
let database: OpenedDatabase

beforeAll(async () => {
  mail = await startMailTestServer({
    CONFIRM_SIGNUPS: 'true',
    MAIL_PER_MINUTE: '0',
    CONFIRM_EXPIRE_CHECK_MS: '200',
    RATE_LIMIT_PER_MINUTE: '0',
  })
  sink = mail.sink
  server = mail.server
  database = mail.database
})

afterAll(async () => {
  await mail?.close()
})

/** Confirmations that arrived for `email` once every message queued for it has gone. */
async function confirmationsTo(email: string): Promise<number> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const [row] = await database.db.query<{ n: number }>(
      `select count(*)::int as n from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
        where w.email = $1 and o.status = 'pending'`,
      [email],
    )
    if (row?.n === 0 || Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const mail = await Promise.all(sink.received.filter((m) => m.to.includes(email)).map(sink.parse))
  return mail.filter((m) => m.subject === SUBJECT).length
}

const moveClock = (email: string, column: 'w.created_at' | 's.confirm_sent_at', by: string) =>
  database.db.query(
    `update ${column === 'w.created_at' ? 'public.waitlist w' : 'private.entry_status s'}
        set ${column.slice(2)} = ${column.slice(2)} - $2::interval
      where ${column === 'w.created_at' ? 'w.email = $1' : 's.waitlist_id = (select id from public.waitlist where email = $1)'}`,
    [email, by],
  )

const statusOf = (email: string) => entryStatus(database.db, email)

const mcpSignup = (email: string) => requestAccessOverMcp(server.url, email)

describe('a repeat signup of an unconfirmed address', () => {
  it('answers 409 as before and sends the confirmation again, at most once an hour', async () => {
    const ada = 'ada.again@example.com'
    expect((await postWaitlist(server, { email: ada })).status).toBe(201)
    expect(await confirmationsTo(ada)).toBe(1)

    const repeat = await postWaitlist(server, { email: 'Ada.Again@example.com' })
    expect(repeat.status).toBe(409)
    expect(await repeat.json()).toEqual({
      code: '23505',
      details: null,
      hint: null,
      message: 'duplicate key value violates unique constraint "waitlist_email_key"',
    })
    expect(await confirmationsTo(ada), 'within the hour of the first: none again').toBe(1)

    await moveClock(ada, 'w.created_at', '61 minutes')
    expect((await postWaitlist(server, { email: ada })).status).toBe(409)
    expect(await confirmationsTo(ada), 'an hour on: sent again').toBe(2)
    expect((await postWaitlist(server, { email: ada })).status).toBe(409)
    expect(await mcpSignup(ada)).toContain('"status":"already_registered"')
    expect(await confirmationsTo(ada), 'then not again within the hour').toBe(2)

    await moveClock(ada, 's.confirm_sent_at', '61 minutes')
    const form = await fetch(`${server.url}/`, {
      method: 'POST',
      body: new URLSearchParams({ email: ada }),
      redirect: 'manual',
    })
    expect(form.headers.get('location')).toBe('/?waitlist=already_registered')
    expect(await confirmationsTo(ada), 'the no-script form too').toBe(3)
    expect(await statusOf(ada)).toBe('unconfirmed')
    expect(server.output()).not.toContain(ada)
  })

  it('sends nothing to a confirmed address', async () => {
    const bob = 'bob.again@example.com'
    expect((await postWaitlist(server, { email: bob })).status).toBe(201)
    await database.db.query(
      `update private.entry_status set status = 'waiting' where waitlist_id = (select id from public.waitlist where email = $1)`,
      [bob],
    )
    await moveClock(bob, 'w.created_at', '2 hours')
    expect((await postWaitlist(server, { email: bob })).status).toBe(409)
    expect(await confirmationsTo(bob)).toBe(1)
  })
})

describe('invite --confirm', () => {
  it('sends the confirmation again on the owner’s word, within the hour too, and says why not otherwise', async () => {
    const cy = 'cy.again@example.com'
    expect((await postWaitlist(server, { email: cy })).status).toBe(201)
    expect(await confirmationsTo(cy)).toBe(1)
    const again = await runCli(
      server.env,
      'invite',
      '--confirm',
      cy,
      'bob.again@example.com',
      'nobody@example.com',
    )
    expect(again.stdout).toContain(`Queued a confirmation for ${cy}.`)
    expect(again.stdout).toContain('bob.again@example.com is waiting: it needs no confirmation')
    expect(again.stdout).toContain('nobody@example.com is not on the waitlist')
    expect(again.code).toBe(1)
    expect(await confirmationsTo(cy)).toBe(2)
    expect((await runCli(server.env, 'invite', '--confirm')).code, 'no address: usage').toBe(2)
  })

  it('names what confirming does when invite meets an unconfirmed entry', async () => {
    expect(whyNotInvited('unconfirmed')).toContain('following the link makes it waiting')
    const named = await runCli(server.env, 'invite', 'cy.again@example.com')
    expect(named.stdout).toContain(`cy.again@example.com ${whyNotInvited('unconfirmed')}`)
    expect(named.stdout).not.toContain('invited once the link is followed')
  })
})

describe('CONFIRM_EXPIRE_DAYS', () => {
  it('erases unconfirmed entries a week after their last confirmation, and their links stop working', async () => {
    const old = 'old.unconfirmed@example.com'
    const kept = 'kept.confirmed@example.com'
    const renewed = 'renewed.unconfirmed@example.com'
    for (const email of [old, kept, renewed]) expect((await postWaitlist(server, { email })).status).toBe(201)
    for (const email of [old, kept, renewed]) expect(await confirmationsTo(email)).toBe(1)
    const link = await confirmLinkOf(old)
    await database.db.query(
      `update private.entry_status set status = 'waiting' where waitlist_id = (select id from public.waitlist where email = $1)`,
      [kept],
    )
    // The owner sent this one again yesterday: its week starts from then.
    expect((await runCli(server.env, 'invite', '--confirm', renewed)).code).toBe(0)
    await moveClock(renewed, 's.confirm_sent_at', '1 day')
    for (const email of [old, kept, renewed]) await moveClock(email, 'w.created_at', '8 days')

    const deadline = Date.now() + 30_000
    while ((await statusOf(old)) !== undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await statusOf(old), 'erased').toBeUndefined()
    expect(await statusOf(kept)).toBe('waiting')
    expect(await statusOf(renewed)).toBe('unconfirmed')
    const [left] = await database.db.query<{ n: number }>(
      `select (select count(*) from private.mail_outbox where waitlist_id not in (select id from public.waitlist))
            + (select count(*) from private.entry_status where waitlist_id not in (select id from public.waitlist))::int as n`,
    )
    expect(Number(left?.n)).toBe(0)

    const followed = await fetch(link, { method: 'POST' })
    expect(followed.status).toBe(200)
    expect(await followed.text()).toContain(mailWords.pages.gone)
    expect(await statusOf(old), 'the link adds nothing back').toBeUndefined()
    expect(server.output()).toMatch(/Erased 1 unconfirmed entries older than 7 days/)
    expect(server.output()).not.toContain(old)
  })
})

async function confirmLinkOf(email: string): Promise<string> {
  const mail = await Promise.all(sink.received.filter((m) => m.to.includes(email)).map(sink.parse))
  const text = mail.find((m) => m.subject === SUBJECT)?.text ?? ''
  const match = /https?:\/\/\S+\/confirm\?t=[A-Za-z0-9_-]+/.exec(text)
  if (!match) throw new Error(`no confirmation link in:\n${text}`)
  return match[0]
}
