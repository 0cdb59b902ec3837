import { describe, expect } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { whyNotInvited } from '../../server/waitlist/entry-status'
import { unsubscribe } from '../../server/waitlist/link-actions'
import { entryStatus } from '../support/entry-status'
import { CONFIRMING, mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'
import { requestAccessOverMcp } from '../support/mcp-raw'

/**
 * Confirmation that strangers cannot abuse (issue 30, item 4), on one server with CONFIRM_SIGNUPS
 * and a real SMTP server: a repeat signup of an unconfirmed address answers as before; one mailbox,
 * however it is spelled, gets at most two confirmations in its first hour, then one an hour;
 * unconfirmed entries expire after CONFIRM_EXPIRE_DAYS; `invite --confirm` sends one on the
 * owner's word. The clock is moved in the database.
 */
const SUBJECT = mailWords.confirmation.subject.replaceAll('{lab}', 'Tessel Labs')

let mail: MailTestServer

const it = mailTest({ ...CONFIRMING, CONFIRM_EXPIRE_CHECK_MS: '200' })

// The file's helpers read these, set once from the fixtures.
it.beforeAll(async ({ mail: started }) => {
  mail = started
})

/** Waits until no message is pending for any of `emails` (as typed), then counts the confirmations that arrived for them. */
async function confirmationsTo(...emails: string[]): Promise<number> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const [row] = await mail.database.db.query<{ n: number }>(
      `select count(*)::int as n from private.mail_outbox o join public.waitlist w on w.id = o.waitlist_id
        where w.email::text = any($1::text[]) and o.status = 'pending'`,
      [emails],
    )
    if (row?.n === 0 || Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const to = new Set(emails.map((email) => email.toLowerCase()))
  const messages = await Promise.all(
    mail.sink.received.filter((m) => m.to.some((t) => to.has(t))).map(mail.sink.parse),
  )
  return messages.filter((m) => m.subject === SUBJECT).length
}

/** Moves an entry's signup and its last confirmation (or only one of them) back by `by`. */
async function moveClock(email: string, by: string, only?: 'signup' | 'confirmation'): Promise<void> {
  if (only !== 'confirmation')
    await mail.database.db.query(
      'update public.waitlist set created_at = created_at - $2::interval where email::text = $1',
      [email, by],
    )
  if (only !== 'signup')
    await mail.database.db.query(
      `update private.entry_status s set confirm_sent_at = s.confirm_sent_at - $2::interval
         from public.waitlist w where w.id = s.waitlist_id and w.email::text = $1`,
      [email, by],
    )
}

const statusOf = (email: string) => entryStatus(mail.database.db, email)

const mcpSignup = (email: string) => requestAccessOverMcp(mail.server.url, email)

describe('a repeat signup of an unconfirmed address', () => {
  it('answers 409 as before; the first repeat sends the confirmation again at once, later ones once an hour', async () => {
    const ada = 'ada.again@example.com'
    // Someone else signs Ada up at 10:00; she misses that message.
    expect((await postWaitlist(mail.server, { email: ada })).status).toBe(201)
    expect(await confirmationsTo(ada)).toBe(1)

    const repeat = await postWaitlist(mail.server, { email: 'Ada.Again@example.com' })
    expect(repeat.status).toBe(409)
    expect(await repeat.json()).toEqual({
      code: '23505',
      details: null,
      hint: null,
      message: 'duplicate key value violates unique constraint "waitlist_email_key"',
    })
    expect(await confirmationsTo(ada), 'under a minute after the first: not again').toBe(1)

    // 10:20: her own signup sends the link again at once, not at 11:00.
    await moveClock(ada, '20 minutes')
    expect((await postWaitlist(mail.server, { email: ada })).status).toBe(409)
    expect(await confirmationsTo(ada), 'the first repeat: sent again at once').toBe(2)
    expect((await postWaitlist(mail.server, { email: ada })).status).toBe(409)
    expect(await mcpSignup(ada)).toContain('"status":"already_registered"')
    expect(await confirmationsTo(ada), 'then not again within the hour').toBe(2)

    await moveClock(ada, '61 minutes')
    const form = await fetch(`${mail.server.url}/`, {
      method: 'POST',
      body: new URLSearchParams({ email: ada }),
      redirect: 'manual',
    })
    expect(form.headers.get('location')).toBe('/?waitlist=already_registered')
    expect(await confirmationsTo(ada), 'an hour on, the no-script form too').toBe(3)
    expect((await postWaitlist(mail.server, { email: ada })).status).toBe(409)
    expect(await confirmationsTo(ada), 'then once an hour').toBe(3)
    expect(await statusOf(ada)).toBe('unconfirmed')
    expect(mail.server.output()).not.toContain(ada)
  })

  it('sends nothing to a confirmed address', async () => {
    const bob = 'bob.again@example.com'
    expect((await postWaitlist(mail.server, { email: bob })).status).toBe(201)
    // Bob confirms from the message he got (a confirmation goes only to the unconfirmed).
    expect(await confirmationsTo(bob)).toBe(1)
    await mail.database.db.query(
      `update private.entry_status set status = 'waiting' where waitlist_id = (select id from public.waitlist where email = $1)`,
      [bob],
    )
    await moveClock(bob, '2 hours')
    expect((await postWaitlist(mail.server, { email: bob })).status).toBe(409)
    expect(await confirmationsTo(bob)).toBe(1)
  })
})

/** `count` spellings of one Gmail mailbox: dots between letters (the bits of i), +tags, either domain, any case. */
function gmailSpellings(user: string, count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, n) => {
    const i = from + n
    const dotted = [...user].map((char, k) => (k > 0 && (i >> (k - 1)) & 1 ? `.${char}` : char)).join('')
    const tag = i % 3 === 1 ? `+w${i}` : ''
    const domain = i % 2 === 0 ? 'gmail.com' : 'GoogleMail.com'
    return `${i % 5 === 0 ? dotted.toUpperCase() : dotted}${tag}@${domain}`
  })
}

describe('one mailbox, however it is spelled', () => {
  it('gets at most two confirmations in its first hour, then one an hour; each entry stays as typed', async () => {
    const started = Date.now()
    const first = gmailSpellings('gracehopper', 30)
    for (const email of first) expect((await postWaitlist(mail.server, { email })).status, email).toBe(201)
    const inFirstMinute = await confirmationsTo(...first)
    console.info(
      `one Gmail mailbox, 30 spellings signed up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${inFirstMinute} confirmations arrived`,
    )
    expect(inFirstMinute, 'the first minute: one').toBe(1)

    // A few minutes on: a second spelling of the set, or a repeat of one, sends the second.
    for (const email of first) await moveClock(email, '3 minutes', 'confirmation')
    const second = gmailSpellings('gracehopper', 10, 30)
    for (const email of second) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    for (const email of first.slice(0, 5))
      expect((await postWaitlist(mail.server, { email })).status).toBe(409)
    expect(await confirmationsTo(...first, ...second), 'the first hour: two').toBe(2)

    for (const email of [...first, ...second]) await moveClock(email, '61 minutes', 'confirmation')
    const third = gmailSpellings('gracehopper', 10, 40)
    for (const email of third) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    for (const email of first.slice(5, 10))
      expect((await postWaitlist(mail.server, { email })).status).toBe(409)
    expect(await confirmationsTo(...first, ...second, ...third), 'an hour on: one more').toBe(3)

    const [stored] = await mail.database.db.query<{ n: number }>(
      'select count(*)::int as n from public.waitlist where email::text = any($1::text[])',
      [[...first, ...second, ...third]],
    )
    expect(stored?.n, 'every spelling is its own entry, as typed').toBe(50)
  })

  it('drops a +tag on any domain, but dots only at Gmail', async () => {
    const tagged = ['lin@example.org', 'Lin+news@example.org', 'lin+x@EXAMPLE.org']
    for (const email of tagged) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    expect(await confirmationsTo(...tagged)).toBe(1)
    const dotted = ['mary@example.org', 'ma.ry@example.org']
    for (const email of dotted) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    expect(await confirmationsTo(...dotted), 'two mailboxes at another domain').toBe(2)
  })

  it('folds Yahoo’s -keyword and Fastmail’s subdomain addresses: two spellings, one confirmation', async () => {
    const yahoo = ['ada-news@yahoo.com', 'Ada-Shop@Yahoo.com']
    for (const email of yahoo) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    expect(await confirmationsTo(...yahoo)).toBe(1)
    const fastmail = ['shop@bea.fastmail.com', 'news+x@bea.fastmail.com', 'bea@fastmail.com']
    for (const email of fastmail) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    expect(await confirmationsTo(...fastmail)).toBe(1)
    // Elsewhere a hyphen or a subdomain names another mailbox; and the owner of bea@fastmail.fm is another.
    const others = ['ada-news@example.org', 'ada-shop@example.org', 'shop@bea.example.org', 'bea@fastmail.fm']
    for (const email of others) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    expect(await confirmationsTo(...others)).toBe(4)
  })

  it('sends no confirmation to a mailbox that unsubscribed under another spelling', async () => {
    const noel = 'noel.quiet@gmail.com'
    expect((await postWaitlist(mail.server, { email: noel })).status).toBe(201)
    expect(await confirmationsTo(noel)).toBe(1)
    expect(await unsubscribe(mail.database.db, noel)).toBe('done')
    await moveClock(noel, '2 hours')
    const other = 'NoelQuiet+again@googlemail.com'
    expect((await postWaitlist(mail.server, { email: other })).status).toBe(201)
    expect(await confirmationsTo(noel, other)).toBe(1)
    expect(await statusOf(other)).toBe('unconfirmed')
  })
})

describe('invite --confirm', () => {
  it('sends the confirmation again on the owner’s word, within the hour too, and says why not otherwise', async () => {
    const cy = 'cy.again@example.com'
    expect((await postWaitlist(mail.server, { email: cy })).status).toBe(201)
    expect(await confirmationsTo(cy)).toBe(1)
    const again = await runCli(
      mail.server.env,
      'invite',
      '--confirm',
      cy,
      'bob.again@example.com',
      'nobody@example.com',
    )
    expect(again.stdout).toContain(`Queued a confirmation for ${cy}.`)
    expect(again.stdout).toContain('bob.again@example.com is waiting: it needs no confirmation')
    expect(again.stdout).toContain('nobody@example.com is not on the waitlist')
    // One queued and the others named with why: a good batch (exit-status.ts).
    expect(again.code).toBe(0)
    expect(await confirmationsTo(cy)).toBe(2)
    expect((await runCli(mail.server.env, 'invite', '--confirm')).code, 'no address: usage').toBe(2)
  })

  it('names what confirming does when invite meets an unconfirmed entry', async () => {
    expect(whyNotInvited('unconfirmed')).toContain('following the link makes it waiting')
    const named = await runCli(mail.server.env, 'invite', 'cy.again@example.com')
    expect(named.stdout).toContain(`cy.again@example.com ${whyNotInvited('unconfirmed')}`)
    expect(named.stdout).not.toContain('invited once the link is followed')
  })
})

describe('CONFIRM_EXPIRE_DAYS', () => {
  it('erases unconfirmed entries a week after their last confirmation, and their links stop working', async () => {
    const old = 'old.unconfirmed@example.com'
    const kept = 'kept.confirmed@example.com'
    const renewed = 'renewed.unconfirmed@example.com'
    for (const email of [old, kept, renewed])
      expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    for (const email of [old, kept, renewed]) expect(await confirmationsTo(email)).toBe(1)
    const link = await confirmLinkOf(old)
    await mail.database.db.query(
      `update private.entry_status set status = 'waiting' where waitlist_id = (select id from public.waitlist where email = $1)`,
      [kept],
    )
    // The owner sent this one again yesterday: its week starts from then.
    expect((await runCli(mail.server.env, 'invite', '--confirm', renewed)).code).toBe(0)
    await moveClock(renewed, '1 day', 'confirmation')
    await moveClock(renewed, '8 days', 'signup')
    for (const email of [old, kept]) await moveClock(email, '8 days')

    const deadline = Date.now() + 30_000
    while ((await statusOf(old)) !== undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await statusOf(old), 'erased').toBeUndefined()
    expect(await statusOf(kept)).toBe('waiting')
    expect(await statusOf(renewed)).toBe('unconfirmed')
    const [left] = await mail.database.db.query<{ n: number }>(
      `select (select count(*) from private.mail_outbox where waitlist_id not in (select id from public.waitlist))
            + (select count(*) from private.entry_status where waitlist_id not in (select id from public.waitlist))::int as n`,
    )
    expect(Number(left?.n)).toBe(0)

    const followed = await fetch(link, { method: 'POST' })
    expect(followed.status).toBe(200)
    expect(await followed.text()).toContain(mailWords.pages.gone)
    expect(await statusOf(old), 'the link adds nothing back').toBeUndefined()
    expect(mail.server.output()).toMatch(/Erased 1 unconfirmed entries older than 7 days/)
    expect(mail.server.output()).not.toContain(old)
  })
})

async function confirmLinkOf(email: string): Promise<string> {
  const messages = await Promise.all(
    mail.sink.received.filter((m) => m.to.includes(email)).map(mail.sink.parse),
  )
  const text = messages.find((m) => m.subject === SUBJECT)?.text ?? ''
  const match = /https?:\/\/\S+\/confirm\?t=[A-Za-z0-9_-]+/.exec(text)
  if (!match) throw new Error(`no confirmation link in:\n${text}`)
  return match[0]
}
