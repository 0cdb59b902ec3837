import { describe, expect } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { postWaitlist } from '../../harness/waitlist-api'
import { auditRecord } from '../../harness/waitlist-cli'
import type { Queryable } from '../../server/db/database'
import { mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'

/**
 * Issue 61, item 1, on a real server with CONFIRM_SIGNUPS off and a real SMTP server: a stranger's
 * signup of another spelling of a removed mailbox (`M.A.R.Y.Smith+hi@googlemail.com` for
 * `mary.smith@gmail.com`) is taken as any signup is, but keeps the mailbox's keyed hash and asks
 * the mailbox to confirm; an old file's import still skips the person, before and after the
 * stranger's entry expires. Only the person's confirmation lifts the hash. The clock is moved in
 * the database.
 */
const SUBJECT = mailWords.confirmation.subject.replaceAll('{lab}', 'Tessel Labs')
const PERSON = 'mary.smith@gmail.com'
const STRANGER = 'M.A.R.Y.Smith+hi@googlemail.com'
const KEPT_OUT = /^1 address is kept out of imports \(1 removed by the owner, 0 erased by the person\)\.\n$/
const NONE_KEPT_OUT =
  '0 addresses are kept out of imports (0 removed by the owner, 0 erased by the person).\n'

let oldFile: string

const it = mailTest({
  MAIL_PER_MINUTE: '0',
  RATE_LIMIT_PER_MINUTE: '0',
  CONFIRM_EXPIRE_CHECK_MS: '200',
  TRUST_PROXY_HEADER: 'x-forwarded-for',
})

it.beforeAll(async ({ scratch }) => {
  // The lab's list as it was before the erasure: the person confirmed and invited, tagged, noted.
  oldFile = await scratch.file(
    'old-list.csv',
    'email,created_at,status,confirmed_at,invited_at,tags,note,consent_at,consent_door\r\n' +
      `${PERSON},2024-10-01T09:00:00Z,invited,2024-10-01T09:05:00Z,2024-10-02T10:00:00Z,shortlist,met at NeurIPS,2024-10-01T09:00:00Z,page\r\n`,
  )
})

/** The confirmation messages `email` was sent (the sink keeps recipients lower-cased), once `count` arrived. */
async function confirmationsTo(mail: MailTestServer, email: string, count: number): Promise<string[]> {
  const to = email.toLowerCase()
  await mail.sink.waitFor(() => mail.sink.countFor(to) >= count, `no confirmation for ${email}`, 30_000)
  const messages = await Promise.all(mail.sink.received.filter((m) => m.to.includes(to)).map(mail.sink.parse))
  return messages.filter((m) => m.subject === SUBJECT).map((m) => m.text ?? '')
}

/** Every entry of the person's mailbox the owner's list shows, with its status, tags and note. */
async function mailboxEntries(db: Queryable): Promise<{ email: string; status: string; marks: string }[]> {
  return db.query(
    `select w.email::text as email, coalesce(s.status, 'waiting') as status,
            coalesce(array_to_string(m.tags, ' '), '') || '|' || coalesce(m.note, '') as marks
       from public.waitlist w
       left join private.entry_status s on s.waitlist_id = w.id
       left join private.entry_marks m on m.waitlist_id = w.id
      where private.mailbox_key(w.email::text) = private.mailbox_key($1)
      order by w.id`,
    [PERSON],
  )
}

describe('an erased mailbox', () => {
  it('stays kept out after a stranger signs up another spelling: the mailbox is asked to confirm, the import skips the person', async ({
    mail,
    cli,
    statusOf,
  }) => {
    expect((await postWaitlist(mail.server, { email: PERSON })).status).toBe(201)
    expect((await cli('remove', PERSON)).code).toBe(0)
    expect((await cli('suppressed')).stdout).toMatch(KEPT_OUT)

    // The stranger's signup answers as any new signup does: nothing tells them the mailbox was erased.
    const stranger = await postWaitlist(
      mail.server,
      { email: STRANGER },
      { 'x-forwarded-for': '203.0.113.5' },
    )
    const anyone = await postWaitlist(mail.server, { email: 'any.one@example.com' })
    expect([stranger.status, await stranger.text()]).toEqual([anyone.status, await anyone.text()])
    expect(stranger.status).toBe(201)

    expect((await cli('suppressed')).stdout, 'the hash stays').toMatch(KEPT_OUT)
    // CONFIRM_SIGNUPS is off, yet this one signup waits for its mailbox's word; the other does not.
    expect(await statusOf(STRANGER)).toBe('unconfirmed')
    expect(await statusOf('any.one@example.com')).toBe('waiting')
    const [text] = await confirmationsTo(mail, STRANGER, 1)
    expect(text).toMatch(/\/confirm\?t=[\w-]+/)
    expect(mail.sink.countFor('any.one@example.com')).toBe(0)

    const imported = await cli('import', oldFile)
    expect(imported.stdout).toContain('1 address erased or removed before was skipped')
    expect(await cli('show', PERSON)).toMatchObject({ code: 1 })
    expect(await mailboxEntries(mail.database.db)).toEqual([
      { email: STRANGER, status: 'unconfirmed', marks: '|' },
    ])
  })

  it('stays kept out once the stranger’s unconfirmed entry expires', async ({ mail, cli, statusOf }) => {
    await mail.database.db.query(
      `update private.entry_status s set confirm_sent_at = s.confirm_sent_at - interval '8 days'
         from public.waitlist w where w.id = s.waitlist_id and w.email::text = $1`,
      [STRANGER],
    )
    await expect.poll(() => statusOf(STRANGER), { timeout: 30_000 }).toBeUndefined()
    expect((await cli('suppressed')).stdout).toMatch(KEPT_OUT)
    expect((await cli('import', oldFile)).stdout).toContain('1 address erased or removed before was skipped')
    expect(await mailboxEntries(mail.database.db)).toEqual([])
  })

  it('comes back when the person follows the confirmation link: the hash goes, the record says so', async ({
    mail,
    cli,
    statusOf,
  }) => {
    expect((await postWaitlist(mail.server, { email: PERSON })).status).toBe(201)
    expect(await statusOf(PERSON)).toBe('unconfirmed')
    const [text] = await confirmationsTo(mail, PERSON, 1)
    expect((await cli('suppressed')).stdout, 'a signup alone lifts nothing').toMatch(KEPT_OUT)
    // Until then the entry may be a stranger's, even in the file's own spelling: the file gives it nothing.
    expect((await cli('import', oldFile)).stdout).toContain('1 address erased or removed before was skipped')
    expect(await mailboxEntries(mail.database.db)).toEqual([
      { email: PERSON, status: 'unconfirmed', marks: '|' },
    ])

    const link = /https?:\/\/\S+\/confirm\?t=[\w-]+/.exec(text ?? '')?.[0] ?? ''
    const followed = await fetch(link, { method: 'POST', headers: { 'x-forwarded-for': '198.51.100.77' } })
    expect(followed.status).toBe(200)
    expect(await statusOf(PERSON)).toBe('waiting')
    expect((await cli('suppressed')).stdout).toBe(NONE_KEPT_OUT)

    const lines = await auditRecord(mail.server.env)
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: 'confirmation: the person', action: 'unsuppress' }),
      ]),
    )
    expect(JSON.stringify(lines)).toContain('198.51.100.0/24')
    expect(JSON.stringify(lines).toLowerCase()).not.toContain('mary')

    // The import no longer skips the mailbox: the file's status, tag and note reach the entry.
    const imported = await cli('import', oldFile)
    expect(imported.stdout).not.toContain('erased or removed before')
    expect(await mailboxEntries(mail.database.db)).toEqual([
      { email: PERSON, status: 'invited', marks: 'shortlist|met at NeurIPS' },
    ])
  })
})
