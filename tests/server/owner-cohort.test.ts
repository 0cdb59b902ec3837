import { describe, expect } from 'vitest'
import type { SmtpSink } from '../../harness/smtp-sink'
import { postWaitlist } from '../../harness/waitlist-api'
import { linkKeys } from '../../server/mail/messages/link-seals'
import { redeemInvite } from '../../server/waitlist/redeem-invite'
import { mailTest } from '../support/fixtures'
import { utcDay } from '../support/relative-dates'

/**
 * Issue 43: the owner chooses the cohort from the CLI and sees who came. A list with sources and
 * answers comes in through `import` (the export's columns), one more entry through the REST insert;
 * then `count`, `list` and `export` filter it, `invite --next N --answer …` mails only the entries
 * that match through a real SMTP server, one invitee's code is redeemed, and `show` and `funnel`
 * tell it as the owner reads them.
 */
const HEADER = 'email,created_at,source,answer_role,answer_organisation,answer_use_case'
// Ten days ago: inside the funnel's 30-day window, which the server measures from its own clock.
const DAY = utcDay(-10)
const at = (minute: number) => `${DAY}T09:${String(minute).padStart(2, '0')}:00.000000Z`
const LIST = [
  `ada.research@lab.org,${at(0)},hackernews,Research,CERN,"Protein folding, at scale"`,
  `bob.eng@corp.com,${at(1)},hackernews,Engineering,Acme Corp,`,
  `cy.research@corp.com,${at(2)},linkedin,Research,Cernovich Labs,`,
  `dee.none@lab.org,${at(3)},direct,,,`,
  `eve.research@lab.org,${at(4)},hackernews,Research,,Build agents`,
  `fay.founder@startup.io,${at(5)},linkedin,Founder or executive,,`,
  `gus.research@startup.io,${at(6)},,Research,,`,
]
const API_SIGNUP = 'hal.api@example.com'

/** `listed(...filter)`: the names `list` prints for these flags, oldest first. */
const it = mailTest({ MAIL_PER_MINUTE: '0' }).extend('listed', async ({ cli }) => {
  return async (...filter: string[]) => {
    const result = await cli('list', ...filter)
    expect(result, filter.join(' ')).toMatchObject({ code: 0, stderr: '' })
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('  ')[1]?.split('.')[0])
  }
})

it.beforeAll(async ({ mail, cli, scratch }) => {
  const file = await scratch.file('cohort.csv', `${HEADER}\r\n${LIST.join('\r\n')}\r\n`)
  const imported = await cli('import', file)
  expect(imported).toMatchObject({ code: 0 })
  expect(imported.stdout).toContain('7 added')
  expect((await postWaitlist(mail.server, { email: API_SIGNUP })).status).toBe(201)
})

describe('list, count and export choose by source, answer, domain and date', () => {
  it('an answer to a choice exactly; several values of one flag: any; different flags: all', async ({
    cli,
    listed,
  }) => {
    expect(await listed('--answer', 'role=Research')).toEqual(['ada', 'cy', 'eve', 'gus'])
    expect(await listed('--answer', 'role=Research', '--source', 'hackernews')).toEqual(['ada', 'eve'])
    expect(await listed('--answer', 'role=Research', '--answer', 'role=Engineering')).toEqual([
      'ada',
      'bob',
      'cy',
      'eve',
      'gus',
    ])
    expect(await listed('--source', 'hackernews', '--source', 'linkedin')).toEqual([
      'ada',
      'bob',
      'cy',
      'eve',
      'fay',
    ])
    expect(await listed('--source', '(api)')).toEqual(['hal'])
    expect(await listed('--domain', 'LAB.org', '--answer', 'role=Research')).toEqual(['ada', 'eve'])
    expect(await listed('--since', at(3), '--answer', 'role=Research')).toEqual(['eve', 'gus'])
    expect((await cli('count', '--answer', 'role=Research', '--domain', 'startup.io')).stdout).toBe('1\n')
    expect((await cli('count', '--answer', 'role=Product')).stdout).toBe('0\n')
  })

  it('a text answer as a part of it, in any letter case', async ({ listed }) => {
    expect(await listed('--answer', 'organisation=cern')).toEqual(['ada', 'cy'])
    expect(await listed('--answer', 'use_case=AGENTS')).toEqual(['eve'])
    expect(await listed('--answer', 'organisation=%')).toEqual([])
  })

  it('export writes the matching entries with their source and answers', async ({ cli }) => {
    const exported = await cli('export', '--answer', 'organisation=cern')
    const [header, ...rows] = exported.stdout.trim().split('\r\n')
    expect(header).toBe(
      'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,joined_at,source,' +
        'answer_role,answer_organisation,answer_use_case,tags,note,consent_at,consent_door,consent_words,' +
        'consent_agent,confirmed_from,name',
    )
    // Each then carries the consent record its import gave it: door import, the version naming the file.
    const imported = /,\d{4}-[^,]+Z,import,[0-9a-f]{16},,,$/
    for (const row of rows) expect(row).toMatch(imported)
    expect(rows.map((row) => row.replace(imported, ''))).toEqual([
      `ada.research@lab.org,${at(0)},waiting,,,,,,hackernews,Research,CERN,"Protein folding, at scale",,`,
      `cy.research@corp.com,${at(2)},waiting,,,,,,linkedin,Research,Cernovich Labs,,,`,
    ])
  })

  it('refuses a bad value in the words of its flag, and a filter where nothing filters (exit 2)', async ({
    cli,
  }) => {
    const refusals: [string[], string][] = [
      [['--answer', 'role=Astronaut'], '--answer role needs one of "Research", "Engineering", "Product"'],
      [['--answer', 'colour=red'], '--answer needs ID=VALUE with ID one of role, organisation, use_case'],
      [['--answer', 'role'], '--answer needs ID=VALUE'],
      [['--domain', 'not a domain'], '--domain needs a domain or its end, such as stanford.edu or edu'],
      [['--since', 'last tuesday'], '--since needs a date such as 2026-11-01'],
    ]
    for (const [flags, words] of refusals) {
      const refused = await cli('count', ...flags)
      expect(refused, flags.join(' ')).toMatchObject({ code: 2, stdout: '' })
      expect(refused.stderr).toContain(words)
    }
    const stats = await cli('stats', '--source', 'hackernews')
    expect(stats).toMatchObject({
      code: 2,
      stderr: '--source goes with list, count, export and invite --next, not stats\n',
    })
  })
})

describe('invite --next N with a filter, through a real SMTP server', () => {
  it('a dry run says how many match and shows the first, writing nothing', async ({ cli }) => {
    const dry = await cli('invite', '--next', '3', '--answer', 'role=Research', '--dry-run')
    expect(dry).toMatchObject({ code: 0 })
    const lines = dry.stdout.split('\n')
    expect(lines.slice(0, 5)).toEqual([
      'Dry run: 3 invitations would be queued. Nothing was written.',
      `  ${at(0)}  ada.research@lab.org  (waiting)`,
      `  ${at(2)}  cy.research@corp.com  (waiting)`,
      `  ${at(4)}  eve.research@lab.org  (waiting)`,
      '4 entries may be invited and match --answer role=Research; --next 3 takes the oldest.',
    ])
    expect((await cli('count', '--status', 'invited')).stdout).toBe('0\n')
    expect((await cli('funnel', '--by', 'batch', '--json')).stdout).toContain('"rows": []')
  })

  it('queues only the matching entries, as one batch, and says so when fewer match than asked', async ({
    mail,
    cli,
    listed,
  }) => {
    const queued = await cli(
      'invite',
      '--next',
      '3',
      '--answer',
      'role=Research',
      '--domain',
      'lab.org',
      '--wait',
    )
    expect(queued).toMatchObject({ code: 0 })
    expect(queued.stdout).toContain(
      'Only 2 entries may be invited and match --answer role=Research --domain lab.org.',
    )
    expect(queued.stdout).toContain('Queued 2 invitations.')
    expect(queued.stdout).toContain('Sent 2 of 2')
    expect(mail.sink.received.flatMap((received) => received.to).sort()).toEqual([
      'ada.research@lab.org',
      'eve.research@lab.org',
    ])
    expect(await listed('--status', 'invited')).toEqual(['ada', 'eve'])
  })

  it('--status only where --next may invite: invited with --resend; a named invite takes no filter', async ({
    cli,
  }) => {
    const bounced = await cli('invite', '--next', '5', '--status', 'bounced')
    expect(bounced).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'invite --next picks among waiting entries (with --resend, invited ones too), so --status bounced does not go with it',
      ),
    })
    const invitedAgain = await cli('invite', '--next', '5', '--status', 'invited', '--resend', '--dry-run')
    expect(invitedAgain.stdout).toContain('Dry run: 2 invitations would be queued.')
    expect(invitedAgain.stdout).toContain('  ada.research@lab.org  (invited)')
    const named = await cli('invite', 'bob.eng@corp.com', '--answer', 'role=Research')
    expect(named).toMatchObject({ code: 2 })
    expect(named.stderr).toContain('--answer chooses among the oldest with --next N')
  })
})

/** The invite code in the invitation the sink received for `email`. */
async function inviteCodeOf(sink: SmtpSink, email: string): Promise<string> {
  const received = sink.received.find((message) => message.to.includes(email))
  if (!received) throw new Error(`no mail to ${email}`)
  const parsed = await sink.parse(received)
  const code = /[?&]invite=([\w-]{50})/.exec(parsed.text ?? '')?.[1]
  if (!code) throw new Error(`no invite code in:\n${parsed.text}`)
  return code
}

describe('show and funnel after the batch, one invitee joined', () => {
  it.beforeAll(async ({ mail }) => {
    const redeemed = await redeemInvite(
      mail.database.db,
      linkKeys(mail.server.secret),
      await inviteCodeOf(mail.sink, 'ada.research@lab.org'),
    )
    expect(redeemed).toMatchObject({ email: 'ada.research@lab.org', first: true })
  })

  it('show --json gives the entry, its answers and its history, oldest first', async ({ cli }) => {
    const shown = await cli('show', 'ADA.research@lab.org', '--json')
    expect(shown).toMatchObject({ code: 0, stderr: '' })
    const entry = JSON.parse(shown.stdout)
    expect(Object.keys(entry)).toEqual([
      'email',
      'name',
      'status',
      'source',
      'answers',
      'proposed',
      'details',
      'tags',
      'note',
      'consent',
      'history',
    ])
    expect(entry).toMatchObject({
      email: 'ada.research@lab.org',
      status: 'joined',
      source: 'hackernews',
      answers: { role: 'Research', organisation: 'CERN', use_case: 'Protein folding, at scale' },
    })
    const history = entry.history as { at: string; event: string; kind?: string; outcome?: string }[]
    expect(history.map((item) => item.event)).toEqual(['signed up', 'invited', 'message', 'joined'])
    expect(history[0]).toEqual({ at: at(0), event: 'signed up', detail: 'from hackernews' })
    expect(history[2]).toMatchObject({ kind: 'invitation', outcome: 'sent' })
    expect(history.map((item) => item.at)).toEqual(history.map((item) => item.at).sort())
  })

  it('show tells it in lines; an address not listed exits 1', async ({ cli }) => {
    const shown = await cli('show', 'eve.research@lab.org')
    expect(shown.stdout).toMatch(
      /^eve\.research@lab\.org\n {2}name {5}\(none\)\n {2}status {3}invited\n {2}source {3}hackernews\n/,
    )
    expect(shown.stdout).toContain('  answers  role: Research\n           use_case: Build agents\n')
    expect(shown.stdout).toMatch(/\n {2}\S+Z {2}message \(invitation\): sent {2}left at /)
    const unknown = await cli('show', 'nobody@example.com')
    expect(unknown).toMatchObject({ code: 1, stdout: '' })
    expect(unknown.stderr).toContain('nobody@example.com is not on the waitlist')
  })

  it('funnel --json by batch: when, by the CLI, chosen how, and who of it joined', async ({ cli }) => {
    const funnel = JSON.parse((await cli('funnel', '--by', 'batch', '--json')).stdout)
    expect(funnel.rows).toEqual([
      expect.objectContaining({
        batch: expect.objectContaining({
          by: 'cli',
          size: 2,
          chosenBy: '--next 3 --answer role=Research --domain lab.org',
        }),
        invited: 2,
        joined: 1,
        rates: expect.objectContaining({ joined: 0.5 }),
      }),
    ])
    expect(funnel.total).toMatchObject({ invited: 2, joined: 1 })
  })

  it('funnel --json by source: imports and a script’s insert have no counted visit: one row of their own', async ({
    cli,
  }) => {
    const funnel = JSON.parse((await cli('funnel', '--json')).stdout)
    expect(funnel.window).toBe('all')
    // The imported entries keep their sources, but no visit of theirs was counted here; nor the API's.
    expect(funnel.rows).toEqual([
      {
        kind: 'no-visit',
        source: null,
        signups: 8,
        confirmed: 8,
        invited: 2,
        joined: 1,
        rates: { signups: null, confirmed: 1, invited: 0.25, joined: 0.5 },
      },
    ])
    expect(funnel.total).toMatchObject({ visits: 0, signupsOnVisits: 0, signups: 8, invited: 2, joined: 1 })
    expect(funnel.total.rates.signups).toBeNull()
    // The studio's other windows; the imports, ten days old, are within the last 30 days.
    const recent = JSON.parse((await cli('funnel', '--days', '30', '--json')).stdout)
    expect(recent).toMatchObject({ window: '30', total: { signups: 8, invited: 2, joined: 1 } })
    expect(await cli('funnel', '--by', 'campaign')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--by needs source, batch or agent, not "campaign"'),
    })
    expect(await cli('funnel', '--days', '1')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('funnel --days takes 30, 90, all, the studio\'s windows, not "1"'),
    })
    const table = await cli('funnel')
    expect(table.stdout).toMatch(/^source +visits +signups +confirmed +invited +joined$/m)
    expect(table.stdout).toMatch(/^no visit counted +– +8 +8 \(100\.0%\) +2 \(25\.0%\) +1 \(50\.0%\)$/m)
  })
})

describe('--help', () => {
  it('describes every new command and flag', async ({ cli }) => {
    const help = (await cli('--help')).stdout
    for (const words of [
      'show EMAIL [--json]',
      'funnel [--by source|batch|agent] [--days 30|90|all] [--json]',
      'invite --next N [FILTER]',
      'export [FILTER] [--out FILE]',
      '--source NAME',
      '--answer ID=VALUE',
      '(ID: role, organisation, use_case)',
      '--domain DOMAIN',
      '--since DATE',
      '--agent NAME',
      '--agent-verified',
      'unsubscribed_at,bounced_at,joined_at,source, then answer_ID for each',
    ])
      expect(help, words).toContain(words)
  })
})
