import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect } from 'vitest'
import { mailWords } from '../../contract/site-config'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import { entryArgs } from '../../harness/test-bundle'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { loadApiKeys } from '../../server/auth/api-keys'
import { linkKeys, sealAddress } from '../../server/mail/messages/link-seals'
import { answersOf } from '../../server/waitlist/entry-answers'
import { CONFIRMING, mailTest } from '../support/fixtures'
import type { MailTestServer } from '../support/mail-test-server'

/**
 * Text from strangers (issue 48, items 2 and 6), on one real server with confirmation on: the
 * confirmation page refuses a NUL in its own words, not with a 503; what is in the database all the
 * same (rows written straight into it) reaches the owner's terminal through `show`, `list` and
 * `export`, read here as bytes, and the studio's API only as visible escapes; an export imported
 * again comes back as the same file; and a Slack receiver gets an address it will not format.
 */
const exec = promisify(execFile)

const it = mailTest(CONFIRMING, { webhook: true })

const answerWords = mailWords.pages.answers

describe('the confirmation page’s answers', () => {
  it('refuse a NUL, beside the bytes of half a character, with the form’s own words: 400, nothing stored', async ({
    mail,
  }) => {
    const email = 'nul.answer@example.com'
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    const keys = linkKeys(
      (await loadApiKeys({ dataDir: mail.server.dataDir, databaseUrl: undefined })).secret,
    )
    const token = sealAddress(keys.confirm, email)
    expect((await fetch(`${mail.server.url}/confirm?t=${token}`, { method: 'POST' })).status).toBe(200)
    const answer = (body: string) =>
      fetch(`${mail.server.url}/confirm/answers?t=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
    // U+D800 has no UTF-8; its WTF-8 bytes (ED A0 80) are what a client can send instead.
    const refused = await answer('organisation=Acme%00Labs&use_case=Agents%ED%A0%80')
    const html = await refused.text()
    expect(refused.status).toBe(400)
    expect(html).toContain(`<h1>${answerWords.problem}</h1>`)
    expect(html).toContain(
      `${answerWords.problemLine} &quot;organisation&quot; holds an invisible control character (U+0000) that cannot be stored; type it again without it.`,
    )
    expect(await answersOf(mail.database.db, email)).toBeUndefined()
    // The bytes alone decode to U+FFFD, which is text: stored as such, never half a character.
    const replaced = await answer('use_case=Agents%ED%A0%80')
    expect(replaced.status).toBe(200)
    expect(await answersOf(mail.database.db, email)).toEqual({ use_case: 'Agents\uFFFD\uFFFD\uFFFD' })
    expect(mail.server.output()).not.toMatch(/\\n\s+at /)
  })
})

// What a stranger could have stored before answers were cleaned, or a row written by hand: an
// OSC title, BEL, a screen clear, a colour, C1's CSI, a direction override, NEL and a tab.
const DIRTY = '\u001b]0;owned\u0007\u001b[2J\u001b[31mRED\u009b31m \u202eevil\u0085 tab\there'
const DIRTY_SOURCE = 'hn\u001b[8m'

/** `npm run waitlist -- …args` against the server's database, its standard output as bytes. */
async function cliBytes(mail: MailTestServer, ...args: string[]): Promise<Buffer> {
  const { stdout } = await exec(process.execPath, [...entryArgs('waitlist-cli'), ...args], {
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: '', ...mail.server.env },
    encoding: 'buffer',
  })
  return stdout
}

/**
 * The bytes a terminal would act on: any below 0x20 but a line break (LF; in a CSV, CR before LF,
 * and the tab a person typed), DEL, and the UTF-8 of C1 controls and of the direction controls.
 */
function actedOn(bytes: Buffer, csv = false): string[] {
  const found: string[] = []
  for (const [at, byte] of bytes.entries()) {
    const format = byte === 0x0a || (csv && (byte === 0x09 || (byte === 0x0d && bytes[at + 1] === 0x0a)))
    if ((byte < 0x20 && !format) || byte === 0x7f) found.push(`0x${byte.toString(16)} at ${at}`)
  }
  const text = bytes.toString('utf8')
  for (const match of text.matchAll(/[\u0080-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g))
    found.push(`U+${match[0].charCodeAt(0).toString(16)} at ${match.index}`)
  return found
}

describe('what is in the database all the same', () => {
  const email = 'dirty.row@example.com'
  let studio: StudioProcess

  it.beforeAll(async ({ mail }) => {
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    await mail.database.db.query(
      `insert into private.entry_answers (waitlist_id, answers)
       select id, jsonb_build_object('organisation', $2::text, 'use_case', $2::text) from public.waitlist where email = $1`,
      [email, DIRTY],
    )
    await mail.database.db.query('update public.waitlist set source = $2 where email = $1', [
      email,
      DIRTY_SOURCE,
    ])
    await mail.database.db.query(
      `insert into private.entry_events (waitlist_id, event, detail)
       select id, 'soft bounce', $2 from public.waitlist where email = $1`,
      [email, '452 \u001b[5mmailbox full\u0007'],
    )
    studio = await startStudioProcess(mail.server.env)
  })
  afterAll(async () => {
    await studio?.stop()
  })

  it('`show` prints it escaped, visibly; `show --json` as JSON escapes, the same data', async ({ mail }) => {
    const shown = await cliBytes(mail, 'show', email)
    expect(actedOn(shown)).toEqual([])
    const text = shown.toString('utf8')
    expect(text).toContain('  source   hn\\x1b[8m')
    expect(text).toContain(
      '  answers  organisation: \\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED\\x9b31m \\u202eevil\\x85 tab here',
    )
    expect(text).toContain('soft bounce  452 \\x1b[5mmailbox full\\x07')

    const json = await cliBytes(mail, 'show', email, '--json')
    expect(actedOn(json)).toEqual([])
    const read = JSON.parse(json.toString('utf8'))
    expect(read.answers).toEqual({ organisation: DIRTY, use_case: DIRTY })
    expect(read.source).toBe(DIRTY_SOURCE)
  })

  it('`list` and `export` carry no byte a terminal acts on; export keeps CSV’s line breaks and typed tabs', async ({
    mail,
  }) => {
    expect(actedOn(await cliBytes(mail, 'list'))).toEqual([])
    expect(actedOn(await cliBytes(mail, 'list', '--source', DIRTY_SOURCE))).toEqual([])
    const exported = await cliBytes(mail, 'export')
    expect(actedOn(exported, true)).toEqual([])
    const row = exported
      .toString('utf8')
      .split('\r\n')
      .find((line) => line.startsWith(email))
    const escaped = '\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED\\x9b31m \\u202eevil\\x85 tab\there'
    // The answers, the team's tags and note, then the consent record (issue 53): the owner's door,
    // no words, no agent.
    expect(row).toMatch(/,api,,,,$/)
    expect(row?.replace(/,[^,]+,api,,,,$/, '').endsWith(`,hn\\x1b[8m,,${escaped},${escaped},,`)).toBe(true)
  })

  it('the studio’s API gives it as visible escapes, in the entry and in the list', async () => {
    const api = async (path: string) => {
      const answer = await fetch(`${studio.origin}${path}`, {
        headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
      })
      expect(answer.status, path).toBe(200)
      return answer.json()
    }
    const entry = await api(`/api/entry?email=${encodeURIComponent(email)}`)
    const escaped = '\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED\\x9b31m \\u202eevil\\x85 tab\there'
    expect(entry.answers).toEqual({ organisation: escaped, use_case: escaped })
    expect(entry.source).toBe('hn\\x1b[8m')
    expect(entry.history).toContainEqual(expect.objectContaining({ detail: '452 \\x1b[5mmailbox full\\x07' }))
    const list = await api(`/api/entries?q=${encodeURIComponent('dirty.row')}`)
    expect(list.entries[0]).toMatchObject({ email, source: 'hn\\x1b[8m', answer_organisation: escaped })
  })

  it('an export imported again stores the escapes as text, and exports as the same line', async ({
    mail,
  }) => {
    const dir = await mkdtemp(join(tmpdir(), 'stranger-text-'))
    try {
      const first = (await cliBytes(mail, 'export')).toString('utf8')
      const line = first.split('\r\n').find((row) => row.startsWith(email)) ?? ''
      const [header] = first.split('\r\n')
      await writeFile(join(dir, 'one.csv'), `${header}\r\n${line}\r\n`)
      await mail.database.db.query('delete from public.waitlist where email = $1', [email])
      const imported = await runCli(mail.server.env, 'import', join(dir, 'one.csv'))
      expect(imported.code, imported.stderr).toBe(0)
      const stored = await answersOf(mail.database.db, email)
      expect(stored?.organisation).toBe(
        '\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED\\x9b31m \\u202eevil\\x85 tab\there',
      )
      const again = (await cliBytes(mail, 'export')).toString('utf8')
      expect(again.split('\r\n').find((row) => row.startsWith(email))).toBe(line)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('a Slack receiver', () => {
  it('gets the address as inline code, with &, < and > escaped: *, _ and ~ in it are not formatting', async ({
    mail,
    receiver,
  }) => {
    const email = 'a*b_c~d`e&f@example.com'
    expect((await postWaitlist(mail.server, { email })).status).toBe(201)
    const signup = () =>
      receiver
        .delivered()
        .find(
          ({ body }) => body.type === 'waitlist.signup' && (body.data as { email?: string }).email === email,
        )
    await receiver.waitFor(() => signup() !== undefined, 'the signup’s webhook')
    const body = signup()?.body as { text: string; content: string }
    expect(body.text).toMatch(
      /^New waitlist signup: `a\*b_c~d\u02cbe&amp;f@example\.com` \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/,
    )
    expect(body.content).toMatch(/^New waitlist signup: a\\\*b\\_c\\~d\\`e&f@example\.com \(/)
  })
})
