import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { postWaitlist } from '../../harness/waitlist-api'
import { auditRecord, cliOf } from '../../harness/waitlist-cli'
import { composeMessage } from '../../server/mail/messages/compose-message'
import { linkKeys, openAddress, sealAddress } from '../../server/mail/messages/link-seals'
import { type MailTestServer, startMailTestServer } from '../support/mail-test-server'
import { postForm as post } from '../support/requests'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver'

/**
 * Issue 53, items 2 and 3, on a real server that confirms signups through a real SMTP server and
 * notifies a real HTTP receiver: the person's own page, reached from the message's link, shows
 * and downloads all the lab holds; "Erase me" (after its confirmation step) erases everything and
 * tells the webhook; the address then stays out of imports until it signs up again and confirms.
 */
const words = mailWords.pages.yourData
/** Words as the page writes them: an apostrophe as its character reference. */
const html = (text: string) => text.replaceAll("'", '&#39;')
const SUBJECT = mailWords.confirmation.subject.replaceAll('{lab}', 'Tessel Labs')

let mail: MailTestServer
let receiver: WebhookReceiver
let scratch: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  mail = await startMailTestServer({
    CONFIRM_SIGNUPS: 'true',
    MAIL_PER_MINUTE: '0',
    TRUST_PROXY_HEADER: 'x-forwarded-for',
    SIGNUP_WEBHOOK_URL: receiver.url,
    SIGNUP_WEBHOOK_EVENTS: 'entry.erased',
    SIGNUP_WEBHOOK_DETAILS: 'source,answers',
  })
  scratch = await mkdtemp(join(tmpdir(), 'your-data-'))
})

afterAll(async () => {
  await mail?.close()
  await receiver?.close()
  await rm(scratch, { recursive: true, force: true })
})

const db = () => mail.database.db
const cli = cliOf(() => mail.server)

/**
 * The links of the `nth` message (the first by default) `email` was sent, a confirmation, from its
 * text part (the sink keeps recipients lower-cased).
 */
async function linksOf(
  email: string,
  nth = 1,
): Promise<{ confirm: string; yourData: string; unsubscribe: string }> {
  const to = email.toLowerCase()
  await mail.sink.waitFor(() => mail.sink.countFor(to) >= nth, `no confirmation for ${email}`, 30_000)
  const messages = await Promise.all(mail.sink.received.filter((m) => m.to.includes(to)).map(mail.sink.parse))
  const text = messages[nth - 1]?.subject === SUBJECT ? (messages[nth - 1]?.text ?? '') : ''
  const confirm = /https?:\/\/\S+\/confirm\?t=[\w-]+/.exec(text)?.[0]
  const yourData = new RegExp(`${mailWords.yourData}: (https?://\\S+/your-data\\?t=[\\w-]+)`).exec(text)?.[1]
  const unsubscribe = /https?:\/\/\S+\/unsubscribe\?t=[\w-]+/.exec(text)?.[0]
  if (!confirm || !yourData || !unsubscribe) throw new Error(`no links in:\n${text}`)
  return { confirm, yourData, unsubscribe }
}

/** Every row the entry `id` has in any table that holds something of an entry. */
async function rowsOf(id: string): Promise<Record<string, number>> {
  const [row] = await db().query<Record<string, number>>(
    `select (select count(*) from public.waitlist where id = $1)::int as waitlist,
            (select count(*) from private.entry_status where waitlist_id = $1)::int as status,
            (select count(*) from private.entry_answers where waitlist_id = $1)::int as answers,
            (select count(*) from private.entry_events where waitlist_id = $1)::int as history,
            (select count(*) from private.entry_marks where waitlist_id = $1)::int as marks,
            (select count(*) from private.entry_names where waitlist_id = $1)::int as names,
            (select count(*) from private.mail_outbox where waitlist_id = $1)::int as mail`,
    [id],
  )
  return row ?? {}
}

describe("the person's own page", () => {
  const email = 'Ada.Person@example.com'
  let links: { confirm: string; yourData: string; unsubscribe: string }
  let id: string

  it('is linked from the confirmation, and shows the entry, answers, consent and history', async () => {
    const page = { Origin: mail.server.url, 'x-forwarded-for': '203.0.113.9' }
    expect((await postWaitlist(mail.server, { email }, page)).status).toBe(201)
    links = await linksOf(email)
    expect(
      openAddress(linkKeys(mail.server.secret).yourData, new URL(links.yourData).searchParams.get('t') ?? ''),
    ).toBe(email.toLowerCase())
    // The unsubscribe link's GET does not: scanners open it (issue 61; "the List-Unsubscribe address" below).
    expect(await (await fetch(links.unsubscribe)).text()).not.toContain('/your-data')
    expect((await post(links.confirm, { 'List-Unsubscribe': 'One-Click' })).status).toBe(200)
    const answered = await post(links.confirm.replace('/confirm?', '/confirm/answers?'), {
      name: ' Ada Person ',
      role: 'Research',
    })
    expect(answered.status).toBe(200)
    const [row] = await db().query<{ id: string }>(
      'select id::text as id from public.waitlist where email = $1',
      [email],
    )
    id = row?.id ?? ''

    const shown = await fetch(links.yourData)
    expect(shown.status).toBe(200)
    expect(shown.headers.get('cache-control')).toBe('no-store')
    const html = await shown.text()
    for (const part of [
      `<h1>${words.title}</h1>`,
      `<dd>${email}</dd>`,
      `<dt>${words.name}</dt><dd>Ada Person</dd>`,
      '<dd>waiting</dd>',
      '<dt>Your role</dt><dd>Research</dd>',
      `<dd>${words.doors.page}</dd>`,
      '<dd>203.0.113.0/24</dd>',
      ', 198.51.100.0/24</dd>',
      'Button: Request Access',
      'confirmation message: sent',
      words.events['signed up'],
      words.events.confirmed,
      `<form method="post" action="/your-data/erase?t=`,
    ])
      expect(html).toContain(part)
  })

  it('downloads all of it as JSON: their name, the team’s tags and note (ADR 117), but not who on the team', async () => {
    // GDPR Art. 15 (issue 64): the team's marks are the person's to read; who set them is not.
    expect((await cli('tag', email, 'shortlist-zq')).code).toBe(0)
    expect((await cli('note', email, 'met at NeurIPS, keen')).code).toBe(0)
    const page = await (await fetch(links.yourData)).text()
    const response = await fetch(links.yourData.replace('/your-data?', '/your-data/download?'))
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="your-data.json"')
    const data = await response.json()
    expect(Object.keys(data)).toEqual([
      'downloaded_at',
      'email',
      'name',
      'status',
      'signed_up_at',
      'source',
      'answers',
      'proposed',
      'details',
      'tags',
      'note',
      'consent',
      'history',
    ])
    expect(data).toMatchObject({
      email,
      name: 'Ada Person',
      status: 'waiting',
      answers: { role: 'Research' },
      tags: ['shortlist-zq'],
      note: 'met at NeurIPS, keen',
      consent: {
        door: 'page',
        words: { text: expect.stringContaining('Check your inbox to confirm your address.') },
        network: '203.0.113.0/24',
        agent: null,
        confirmed_at: expect.any(String),
        confirmed_from: '198.51.100.0/24',
      },
    })
    // The history in the person's words: no event names, no door markers, no team member.
    const lines = data.history.map((item: { what: string }) => item.what)
    expect(lines).toEqual(
      expect.arrayContaining([
        words.events['signed up'],
        expect.stringMatching(/^A confirmation message: sent/),
        words.events.confirmed,
        'The team added the tag shortlist-zq',
        words.events['note written'],
      ]),
    )
    expect(JSON.stringify(data)).not.toContain('203.0.113.9')
    for (const shown of ['shortlist-zq', 'met at NeurIPS, keen', html(words.marks)])
      expect(page).toContain(shown)
    for (const team of ['cli:', 'tagged', 'note written', '(cli)', '(api)', '"by"']) {
      expect(JSON.stringify(data)).not.toContain(team)
      expect(page).not.toContain(team)
    }
  })

  it('tells an entry from the lab’s earlier list in plain words, with its details, naming no file', async () => {
    const listed = 'grace.listed@example.com'
    const file = join(scratch, 'lab-list-2026-FINAL.csv')
    await writeFile(file, `email,tags,note\r\n${listed},alumni,Met at the open day\r\n`)
    expect((await cli('import', file)).code).toBe(0)
    // What the import helper's reading of a file's other columns and names writes (migration 20261207500000).
    await db().query(
      `insert into private.entry_details (waitlist_id, details)
       select id, '{"How did you hear": "A friend", "Team size": "4"}'::jsonb from public.waitlist where email = $1`,
      [listed],
    )
    await db().query(
      `insert into private.entry_names (waitlist_id, name, given_name)
       select id, 'Grace B. Hopper', 'Grace' from public.waitlist where email = $1`,
      [listed],
    )
    const keys = linkKeys(mail.server.secret)
    const token = sealAddress(keys.yourData, listed)
    const page = await (await fetch(`${mail.server.url}/your-data?t=${token}`)).text()
    const download = await (await fetch(`${mail.server.url}/your-data/download?t=${token}`)).json()
    expect(download).toMatchObject({
      name: 'Grace B. Hopper',
      details: { 'How did you hear': 'A friend', 'Team size': '4' },
      tags: ['alumni'],
      note: 'Met at the open day',
    })
    for (const part of [
      `<dd>Grace B. Hopper</dd>`,
      '<dt>How did you hear</dt><dd>A friend</dd>',
      '<dd>alumni</dd>',
      'Met at the open day',
      html(words.events.added),
      'The team added the tag alumni',
    ])
      expect(page).toContain(part)
    for (const text of [page, JSON.stringify(download)]) {
      expect(text).not.toContain('lab-list-2026-FINAL')
      expect(text).not.toContain('.csv')
      expect(text).not.toMatch(/\(import\)|\(api\)|\(cli\)|\bmarked\b/)
    }
  })

  it('erases after its confirmation step: everything goes, the webhook hears entry.erased, the links say so', async () => {
    const erase = links.yourData.replace('/your-data?', '/your-data/erase?')
    expect((await fetch(links.yourData.replace('/your-data?', '/your-data/erase?'))).status).toBe(404)
    const asked = await post(erase, {})
    expect(await asked.text()).toContain(`<h1>${words.confirmTitle}</h1>`)
    expect(await rowsOf(id), 'the first POST only asks').toMatchObject({ waitlist: 1, names: 1 })

    const erased = await post(erase, { confirm: 'yes' })
    expect(await erased.text()).toContain(`<h1>${words.erased}</h1>`)
    // The consent record is the entry's own row's: it went with it.
    expect(await rowsOf(id)).toEqual({
      waitlist: 0,
      status: 0,
      answers: 0,
      history: 0,
      marks: 0,
      names: 0,
      mail: 0,
    })
    expect(await cli('show', email)).toMatchObject({ code: 1 })
    // The team's record says an erasure happened and who asked, never the address.
    const lines = await auditRecord(mail.server.env)
    expect(lines).toEqual(
      expect.arrayContaining([expect.objectContaining({ actor: 'your-data: the person', action: 'erase' })]),
    )
    expect(JSON.stringify(lines).toLowerCase()).not.toContain('ada.person')

    await receiver.waitFor(() => receiver.delivered().length > 0, 'no entry.erased arrived', 30_000)
    const [told] = receiver.delivered()
    expect(told?.body).toMatchObject({
      type: 'entry.erased',
      data: { email, occurred_at: expect.any(String) },
    })
    expect(told?.body.data).not.toHaveProperty('created_at')
    // SIGNUP_WEBHOOK_DETAILS is on, but the details went with the entry.
    expect(told?.body.data).not.toHaveProperty('source')
    expect(told?.body.data).not.toHaveProperty('answers')
    const kept = () =>
      db().query(
        `select erased_email from private.webhook_deliveries where event = 'entry.erased' and status = 'delivered'`,
      )
    await expect.poll(kept, { timeout: 10_000 }).toEqual([{ erased_email: null }])

    for (const link of [links.yourData, links.confirm])
      expect(await (await fetch(link)).text()).toContain(`<h1>${words.notListed}</h1>`)
    expect(await (await post(erase, { confirm: 'yes' })).text()).toContain(`<h1>${words.notListed}</h1>`)
  })

  it('keeps the address out of imports, erased or removed, until it signs up again and confirms', async () => {
    expect((await cli('suppressed')).stdout).toBe(
      '1 address is kept out of imports (0 removed by the owner, 1 erased by the person).\n',
    )
    expect((await postWaitlist(mail.server, { email: 'removed.one@example.com' })).status).toBe(201)
    expect((await cli('remove', 'removed.one@example.com')).code).toBe(0)
    const file = join(scratch, 'old-list.csv')
    await writeFile(
      file,
      'email\r\nADA.PERSON@example.com\r\nremoved.one@example.com\r\nnew.one@example.com\r\n',
    )
    const imported = await cli('import', file)
    expect(imported.stdout).toContain(
      '1 added; 0 are already on the list (skipped); 2 addresses erased or removed before were skipped',
    )
    expect((await cli('list')).stdout).not.toMatch(/ada\.person|removed\.one/i)

    // A new signup is accepted, but may be a stranger's: the hash stays until the link is followed.
    const sent = mail.sink.countFor(email.toLowerCase())
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    expect((await cli('suppressed')).stdout).toMatch(/^2 addresses are kept out of imports \(1 removed/)
    expect((await cli('show', email, '--json')).stdout).toContain('"door": "api"')
    const { confirm } = await linksOf(email, sent + 1)
    expect((await post(confirm, {})).status).toBe(200)
    expect((await cli('suppressed')).stdout).toMatch(/^1 address is kept out of imports \(1 removed/)
  })
})

describe('the List-Unsubscribe address (issue 61, item 7)', () => {
  /** The List-Unsubscribe URL of the confirmation sent to `email`, as a mail system reads it. */
  async function listUnsubscribe(email: string): Promise<string> {
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    await mail.sink.waitFor(() => mail.sink.countFor(email) > 0, `no confirmation for ${email}`, 30_000)
    const [sent] = await Promise.all(
      mail.sink.received.filter((m) => m.to.includes(email)).map(mail.sink.parse),
    )
    const line = sent?.headerLines.find((header) => header.key === 'list-unsubscribe')?.line ?? ''
    const url = /<(https?:\/\/[^>]+\/unsubscribe\?t=[\w-]+)>/.exec(line.replace(/\r?\n\s+/g, ''))?.[1]
    if (!url) throw new Error(`no List-Unsubscribe in ${JSON.stringify(line)}`)
    return url
  }
  /** Every token on the page that opens with the key of the person's page: none, or the address's. */
  const dataKeysIn = (html: string) =>
    [...html.matchAll(/t=([\w-]+)/g)]
      .map((match) => openAddress(linkKeys(mail.server.secret).yourData, match[1] ?? ''))
      .filter((opened) => opened !== undefined)

  it('opened with a plain GET, before and after a one-click POST, shows no link to the data and no key', async () => {
    const email = 'scanned.link@example.com'
    const url = await listUnsubscribe(email)
    const asked = await fetch(url)
    const page = await asked.text()
    expect(asked.status).toBe(200)
    expect(page).toContain('<form method="post"')
    expect(page).not.toContain('/your-data')
    expect(page).not.toContain(words.link)
    expect(dataKeysIn(page)).toEqual([])
    // RFC 8058: the mail system's POST still unsubscribes, and its answer carries no key either.
    const oneClick = await fetch(url, { method: 'POST', body: 'List-Unsubscribe=One-Click' })
    expect(oneClick.status).toBe(200)
    const answered = await oneClick.text()
    expect(answered).not.toContain('/your-data')
    expect(dataKeysIn(answered)).toEqual([])
    expect((await cli('show', email, '--json')).stdout).toContain('"status": "unsubscribed"')
    const done = await (await fetch(url)).text()
    expect(done).toContain(`<h1>${mailWords.pages.unsubscribe.done}</h1>`)
    expect(done).not.toContain('/your-data')
    expect(dataKeysIn(done)).toEqual([])
  })

  it('after the person unsubscribes there by hand, the answer links to their data, sealed for them', async () => {
    const email = 'by.hand@example.com'
    const url = await listUnsubscribe(email)
    const page = await (await fetch(url)).text()
    // The page's form as a browser submits it: its action, its hidden fields.
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1]?.replaceAll('&amp;', '&') ?? ''
    const fields = Object.fromEntries(
      [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
    )
    const answer = await post(new URL(action, url).href, fields, '198.51.100.78')
    expect(answer.status).toBe(200)
    const html = await answer.text()
    expect(html).toContain(`<h1>${mailWords.pages.unsubscribe.done}</h1>`)
    expect(html).toContain(`>${words.link}</a>`)
    expect(dataKeysIn(html)).toEqual([email])
    expect((await cli('show', email, '--json')).stdout).toContain('"status": "unsubscribed"')
  })
})

describe('every message', () => {
  it('links to the person’s own page, the invitation as the confirmation', () => {
    const keys = linkKeys(new Uint8Array(32).fill(7))
    const context = { siteUrl: 'https://lab.example', betaUrl: 'https://beta.lab.example/', keys }
    for (const kind of ['invitation', 'confirmation'] as const) {
      const message = composeMessage(context, {
        kind,
        uuid: '6f1d2c3b-0000-4000-8000-000000000001',
        email: 'bo@example.com',
        queuedAt: new Date('2024-12-05T09:00:00Z'),
        messageDomain: 'lab.example',
      })
      const link = /Your data: (https:\/\/lab\.example\/your-data\?t=([\w-]+))/.exec(message.text)
      expect(link, kind).not.toBeNull()
      expect(openAddress(keys.yourData, link?.[2] ?? '')).toBe('bo@example.com')
      expect(message.html).toContain(`href="${link?.[1]}"`)
    }
  })
})
