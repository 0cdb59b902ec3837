import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect } from 'vitest'
import { ENTRY_STATUSES } from '../../contract/entry-statuses'
import { type StudioProcess, startStudioProcess } from '../../harness/studio-process'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { loadApiKeys } from '../../server/auth/api-keys'
import { emailMask, emailMaskKey } from '../../server/base/log'
import { mailTest } from '../support/fixtures'
import { postMailEvent, postmarkAuth } from '../support/requests'

/**
 * Issue 41: statuses at a glance. After a first batch through Postmark, the lab's engineer read
 * `hard bounces 3 (5.8%)` and then `0 bounced` in one `deliveries`, and had no way to list or count
 * the entries of one status. Here a batch of 8 goes out through a real SMTP server, Postmark then
 * reports 3 hard bounces and a spam complaint (its documented payloads, with its Basic auth), and
 * `list`, `count`, `export`, `deliveries` and the studio's API are read as the owner reads them.
 */
const POSTMARK = `postmark-hook:${randomBytes(12).toString('hex')}`
const people = Array.from(
  { length: 12 },
  (_, index) => `person.${String(index).padStart(2, '0')}@example.com`,
)
const bounced = people.slice(0, 3)
const [complained = ''] = people.slice(3, 4)
const invited = people.slice(4, 8)
const waiting = people.slice(8)

const it = mailTest({ MAIL_PER_MINUTE: '0', MAIL_EVENTS_POSTMARK_AUTH: POSTMARK })

/** What Postmark posts for a hard bounce or a spam complaint of a message to `email`. */
function postmarkEvent(server: TestServer, email: string, kind: 'HardBounce' | 'SpamComplaint', id: number) {
  const body = JSON.stringify({
    RecordType: kind === 'HardBounce' ? 'Bounce' : 'SpamComplaint',
    MessageStream: 'broadcast',
    ID: id,
    Type: kind,
    TypeCode: kind === 'HardBounce' ? 1 : 512,
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
    Email: email,
    From: 'beta@tessel-labs.example',
    BouncedAt: new Date().toISOString(),
    Subject: 'Your invitation to the Tessel Labs private beta',
  })
  return postMailEvent(server, 'postmark', body, postmarkAuth(POSTMARK))
}

it.beforeAll(async ({ mail, cli }) => {
  for (const email of people) expect((await postWaitlist(mail.server, { email })).status).toBe(201)
  const batch = await cli('invite', '--next', '8', '--wait')
  expect(batch.stdout).toContain('Sent 8 of 8')
  for (const [index, email] of bounced.entries())
    expect((await postmarkEvent(mail.server, email, 'HardBounce', 100 + index)).status).toBe(200)
  expect((await postmarkEvent(mail.server, complained, 'SpamComplaint', 200)).status).toBe(200)
})

const addressesIn = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('  ')[1])

describe('list, count and export by status', () => {
  it('count --status counts one status, or any of several; without it, everyone', async ({ cli }) => {
    expect((await cli('count')).stdout).toBe('12\n')
    expect((await cli('count', '--status', 'bounced')).stdout).toBe('3\n')
    expect((await cli('count', '--status', 'waiting')).stdout).toBe('4\n')
    expect((await cli('count', '--status', 'bounced', '--status', 'complained')).stdout).toBe('4\n')
    expect((await cli('count', '--status', 'invited', '--since', '2000-01-01')).stdout).toBe('4\n')
    expect((await cli('count', '--status', 'unsubscribed')).stdout).toBe('0\n')
  })

  it('list --status lists the entries of those statuses, oldest first', async ({ cli }) => {
    const refused = await cli('list', '--status', 'complained', '--status', 'bounced')
    expect(refused).toMatchObject({ code: 0, stderr: '' })
    expect(addressesIn(refused.stdout)).toEqual([...bounced, complained])
    expect(refused.stdout).toMatch(/^\S+Z {2}person\.00@example\.com {2}bounced$/m)
    expect(addressesIn((await cli('list', '--status', 'waiting')).stdout)).toEqual(waiting)
    expect(addressesIn((await cli('list', '--status', 'invited')).stdout)).toEqual(invited)
  })

  it('export --status writes those entries only, under the usual header', async ({ cli }) => {
    const exported = await cli('export', '--status', 'complained')
    const [header, ...rows] = exported.stdout.trim().split('\r\n')
    expect(header).toBe(
      'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,joined_at,source,' +
        'answer_role,answer_organisation,answer_use_case,tags,note,consent_at,consent_door,consent_words,' +
        'consent_agent,confirmed_from,name',
    )
    expect(
      rows.map((row) =>
        row
          .split(',')
          .slice(0, 1)
          .concat(row.split(',')[2] ?? ''),
      ),
    ).toEqual([[complained, 'complained']])
  })

  it('refuses a status that is not one, naming them all, and --status where nothing filters (exit 2)', async ({
    cli,
  }) => {
    const wrong = await cli('list', '--status', 'bouncing')
    expect(wrong).toMatchObject({ code: 2, stdout: '' })
    expect(wrong.stderr).toContain(`--status needs one of ${ENTRY_STATUSES.join(', ')}, not "bouncing"`)
    // Where a command does not filter by it, the flag is refused rather than ignored.
    const invite = await cli('invite', '--next', '2', '--status', 'bounced')
    expect(invite).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('so --status bounced does not go with it'),
    })
    const stats = await cli('stats', '--status', 'bounced')
    expect(stats).toMatchObject({
      code: 2,
      stderr: '--status goes with list, count, export and invite --next, not stats\n',
    })
  })

  it('--help names every status, complained among them', async ({ cli }) => {
    const help = await cli('--help')
    expect(help.stdout).toContain(`S is a status: ${ENTRY_STATUSES.join(', ')}`)
  })
})

describe('deliveries after the batch', () => {
  it('tells who bounced or complained since the batch, masked as the log masks them; its counts agree', async ({
    mail,
    cli,
  }) => {
    const report = await cli('deliveries')
    expect(report).toMatchObject({ code: 0, stderr: '' })
    expect(report.stdout).toMatch(/hard bounces 3 \(/)
    expect(report.stdout).toMatch(/complaints 1 \(/)
    expect(report.stdout).not.toMatch(/\b0 bounced\b/)
    expect(report.stdout).toMatch(
      /^Refused since the last invitations were queued \(\S+Z\): 3 bounced, 1 complained\.$/m,
    )
    const { secret } = await loadApiKeys({ dataDir: mail.server.dataDir, databaseUrl: undefined })
    const mask = (email: string) => `<email:${emailMask(email, emailMaskKey(secret))}>`
    for (const email of [...bounced, complained]) {
      expect(report.stdout).not.toContain(email)
      expect(report.stdout).toContain(mask(email))
    }
    expect(report.stdout).toMatch(new RegExp(`^complained {2}\\S+Z {2}${mask(complained)}$`, 'm'))
    expect(report.stdout).toContain('--show-addresses prints them.')

    const shown = await cli('deliveries', '--show-addresses')
    for (const email of [...bounced, complained]) expect(shown.stdout).toContain(email)
    expect(shown.stdout).toMatch(
      new RegExp(`^bounced {5}\\S+Z {2}${bounced[0]?.replaceAll('.', '\\.')}$`, 'm'),
    )
    expect(shown.stdout).not.toContain('<email:')
  })
})

describe('the studio by status', () => {
  let studio: StudioProcess
  const api = async (path: string) => {
    const answer = await fetch(`${studio.origin}${path}`, {
      headers: { 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${studio.token}` },
    })
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> }
  }
  it.beforeAll(async ({ mail }) => {
    studio = await startStudioProcess(mail.server.env)
  })
  afterAll(async () => {
    await studio?.stop()
  })

  it('counts each status beside the total', async () => {
    const { body } = await api('/api/summary')
    expect(body.total).toBe(12)
    expect(body.statuses).toEqual({
      unconfirmed: 0,
      waiting: 4,
      invited: 4,
      joined: 0,
      unsubscribed: 0,
      bounced: 3,
      complained: 1,
    })
  })

  it('filters the list by any of the statuses asked for, with or without a search', async () => {
    const page = async (query: string) =>
      (await api(`/api/entries?${query}`)).body as { matching: number; entries: { email: string }[] }
    const refused = await page('status=bounced&status=complained')
    expect(refused.matching).toBe(4)
    expect(refused.entries.map((entry) => entry.email)).toEqual([...bounced, complained].reverse())
    expect((await page('status=waiting')).entries.map((entry) => entry.email)).toEqual([...waiting].reverse())
    const searched = await page('q=person.0&status=invited')
    expect(searched.entries.map((entry) => entry.email)).toEqual([
      'person.07@example.com',
      'person.06@example.com',
      'person.05@example.com',
      'person.04@example.com',
    ])
    expect(searched.matching).toBe(4)
    const wrong = await api('/api/entries?status=nope')
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toContain('status needs one of')
  })
})
