import { describe, expect } from 'vitest'
import { TEST_BETA_URL } from '../../harness/test-server'
import { mailTest } from '../support/fixtures'

/**
 * Issue 50 from the CLI: the team's tags and note (`tag`, `untag`, `note`), shown by `show` and
 * written in the history; `--tag`, `--no-tag`, `--domain` with subdomains and bare suffixes and
 * `--batch` on list, count, export and invite --next; `list --json`. Tags and notes never reach a
 * mail (a real SMTP server) or a webhook, and go with the entry.
 */
const at = (minute: number) => `2024-11-01T09:${String(minute).padStart(2, '0')}:00.000000Z`
const LIST = [
  'percy@cs.stanford.edu',
  'ann@stanford.edu',
  'bo@mit.edu',
  'cat@notedu.com',
  'dan@ox.ac.uk',
  'eve@example.com',
  'fay@sub.ox.ac.uk',
]
const NOTE = 'Met at NeurIPS; wants the agents track'

/** `listed(...flags)`: the addresses `list` prints for these flags, oldest first. */
const it = mailTest({ MAIL_PER_MINUTE: '0', BETA_URL: TEST_BETA_URL }, { webhook: true }).extend(
  'listed',
  async ({ cli }) => {
    return async (...flags: string[]) => {
      const result = await cli('list', ...flags)
      expect(result, flags.join(' ')).toMatchObject({ code: 0, stderr: '' })
      return result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('  ')[1])
    }
  },
)

it.beforeAll(async ({ cli, scratch }) => {
  const rows = LIST.map((email, index) => `${email},${at(index)}`)
  const file = await scratch.file('list.csv', `email,created_at\n${rows.join('\n')}\n`)
  expect(await cli('import', file)).toMatchObject({ code: 0 })
})

describe('tag, untag and note', () => {
  it('tags several addresses at once, says which had it already and which are not listed', async ({
    cli,
  }) => {
    const first = await cli('tag', 'percy@cs.stanford.edu', 'ANN@stanford.edu', 'shortlist')
    expect(first).toMatchObject({ code: 0, stdout: 'Tagged 2 entries shortlist.\n', stderr: '' })
    const again = await cli('tag', 'percy@cs.stanford.edu', 'bo@mit.edu', 'nobody@example.com', 'Shortlist')
    expect(again.code).toBe(0)
    expect(again.stdout).toBe('Tagged 1 entry shortlist.\n1 entry already had it: percy@cs.stanford.edu\n')
    expect(again.stderr).toBe('nobody@example.com is not on the waitlist (in any letter case).\n')
    expect(await cli('tag', 'percy@cs.stanford.edu', 'partner')).toMatchObject({ code: 0 })
    // None of them listed: nothing asked could be done.
    expect(await cli('tag', 'nobody@example.com', 'shortlist')).toMatchObject({ code: 1, stdout: '' })
  })

  it('refuses a tag that is not one word, and a command without its parts (exit 2)', async ({ cli }) => {
    const refusals: [string[], string][] = [
      [
        ['tag', 'bo@mit.edu', 'short list'],
        'tag: a tag is one word of up to 32 characters (a-z, 0-9, - and _, e.g. shortlist), not "short list"',
      ],
      [['untag', 'bo@mit.edu'], 'untag needs the addresses and the tag, the tag last: untag EMAIL… TAG'],
      [['note', 'bo@mit.edu'], 'note needs the address and the text'],
      [
        ['note', 'bo@mit.edu', 'y'.repeat(1001)],
        'note: a note is at most 1,000 characters; this one has 1,001',
      ],
    ]
    for (const [args, words] of refusals) {
      const refused = await cli(...args)
      expect(refused, args.join(' ').slice(0, 60)).toMatchObject({ code: 2, stdout: '' })
      expect(refused.stderr).toContain(words)
    }
  })

  it('writes, keeps and clears a note; show and show --json tell the tags and the note, and the history each change', async ({
    cli,
  }) => {
    expect(await cli('note', 'percy@cs.stanford.edu', NOTE)).toMatchObject({
      code: 0,
      stdout: 'Wrote the note of percy@cs.stanford.edu.\n',
    })
    expect((await cli('note', 'PERCY@cs.stanford.edu', NOTE)).stdout).toBe(
      'The note of percy@cs.stanford.edu was already so; nothing changed.\n',
    )
    expect(await cli('note', 'nobody@example.com', 'x')).toMatchObject({ code: 1 })
    const shown = await cli('show', 'percy@cs.stanford.edu')
    expect(shown.stdout).toContain(`  tags     partner shortlist\n  note     ${NOTE}\n`)
    const json = JSON.parse((await cli('show', 'percy@cs.stanford.edu', '--json')).stdout)
    expect(json).toMatchObject({ tags: ['partner', 'shortlist'], note: NOTE })
    expect(json.history.map((item: { event: string; detail?: string }) => [item.event, item.detail])).toEqual(
      [
        ['signed up', undefined],
        ['tagged', 'shortlist (cli)'],
        ['tagged', 'partner (cli)'],
        ['note written', `"${NOTE}" (cli)`],
      ],
    )
    // The record names who marked (the team studio's Activity and `audit`): here the terminal's user.
    const marks = json.history.filter((item: { event: string }) => item.event !== 'signed up')
    expect(marks.map((item: { by?: string }) => item.by?.startsWith('cli:'))).toEqual([true, true, true])

    expect(await cli('untag', 'percy@cs.stanford.edu', 'eve@example.com', 'partner')).toMatchObject({
      code: 0,
      stdout: 'Untagged 1 entry partner.\n1 entry did not have it: eve@example.com\n',
    })
    expect(await cli('note', 'ann@stanford.edu', 'to clear')).toMatchObject({ code: 0 })
    expect(await cli('note', 'ann@stanford.edu', '')).toMatchObject({
      code: 0,
      stdout: 'Cleared the note of ann@stanford.edu.\n',
    })
    const ann = JSON.parse((await cli('show', 'ann@stanford.edu', '--json')).stdout)
    expect(ann).toMatchObject({ tags: ['shortlist'], note: null })
    expect(ann.history.map((item: { event: string }) => item.event)).toEqual([
      'signed up',
      'tagged',
      'note written',
      'note cleared',
    ])
  })
})

describe('filters that reach everywhere', () => {
  it('--tag (all must match) and --no-tag on list, count and export', async ({ cli, listed }) => {
    await cli('tag', 'percy@cs.stanford.edu', 'dan@ox.ac.uk', 'ask-again')
    expect(await listed('--tag', 'shortlist')).toEqual([
      'percy@cs.stanford.edu',
      'ann@stanford.edu',
      'bo@mit.edu',
    ])
    expect(await listed('--tag', 'shortlist', '--tag', 'ask-again')).toEqual(['percy@cs.stanford.edu'])
    expect(await listed('--no-tag', 'shortlist', '--no-tag', 'ask-again')).toEqual([
      'cat@notedu.com',
      'eve@example.com',
      'fay@sub.ox.ac.uk',
    ])
    expect(await listed('--tag', 'shortlist', '--no-tag', 'ask-again')).toEqual([
      'ann@stanford.edu',
      'bo@mit.edu',
    ])
    expect((await cli('count', '--tag', 'SHORTLIST')).stdout).toBe('3\n')
    const exported = (await cli('export', '--tag', 'ask-again')).stdout.trim().split('\r\n')
    expect(exported[0]).toMatch(
      /,tags,note,consent_at,consent_door,consent_words,consent_agent,confirmed_from,name$/,
    )
    // Then the consent record their import gave them (issue 53): door import, the file's words.
    const imported = /,\d{4}-[^,]+Z,import,[0-9a-f]{16},,,$/
    expect(exported.slice(1).map((row) => row.replace(imported, ''))).toEqual([
      `percy@cs.stanford.edu,${at(0)},waiting,,,,,,,,,,ask-again shortlist,${NOTE}`,
      `dan@ox.ac.uk,${at(4)},waiting,,,,,,,,,,ask-again,`,
    ])
  })

  it('--domain is the domain and every subdomain; a bare suffix finds its domains, not a name that ends alike', async ({
    cli,
    listed,
  }) => {
    expect(await listed('--domain', 'stanford.edu')).toEqual(['percy@cs.stanford.edu', 'ann@stanford.edu'])
    expect(await listed('--domain', 'edu')).toEqual([
      'percy@cs.stanford.edu',
      'ann@stanford.edu',
      'bo@mit.edu',
    ])
    expect(await listed('--domain', 'ac.uk')).toEqual(['dan@ox.ac.uk', 'fay@sub.ox.ac.uk'])
    expect(await listed('--domain', '@OX.ac.uk', '--domain', 'mit.edu')).toEqual([
      'bo@mit.edu',
      'dan@ox.ac.uk',
      'fay@sub.ox.ac.uk',
    ])
    expect(await listed('--domain', 'cs.stanford.edu')).toEqual(['percy@cs.stanford.edu'])
    expect(await listed('--domain', 'du')).toEqual([])
    expect((await cli('count', '--domain', '.edu', '--tag', 'shortlist')).stdout).toBe('3\n')
  })

  it('list --json prints one entry a line, as show --json without its history', async ({ cli }) => {
    const result = await cli('list', '--json', '--domain', 'stanford.edu')
    expect(result).toMatchObject({ code: 0, stderr: '' })
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toEqual([
      {
        email: 'percy@cs.stanford.edu',
        name: null,
        status: 'waiting',
        source: null,
        answers: {},
        tags: ['ask-again', 'shortlist'],
        note: NOTE,
        created_at: at(0),
      },
      {
        email: 'ann@stanford.edu',
        name: null,
        status: 'waiting',
        source: null,
        answers: {},
        tags: ['shortlist'],
        note: null,
        created_at: at(1),
      },
    ])
  })
})

describe('invite --next by tag, then --batch, through a real SMTP server', () => {
  it('invites only the tagged; --batch N finds the entries whose latest invitation was in batch N', async ({
    mail,
    cli,
    listed,
  }) => {
    const first = await cli('invite', '--next', '10', '--tag', 'shortlist', '--domain', 'edu', '--wait')
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('Only 3 entries may be invited and match --domain edu --tag shortlist.')
    const second = await cli('invite', '--next', '1', '--domain', 'ac.uk')
    expect(second.stdout).toContain('Queued 1 invitation.')
    const { sink } = mail
    await sink.waitFor(() => sink.received.length >= 4, 'four invitations')
    expect(sink.received.flatMap((received) => received.to).sort()).toEqual([
      'ann@stanford.edu',
      'bo@mit.edu',
      'dan@ox.ac.uk',
      'percy@cs.stanford.edu',
    ])
    const batches = JSON.parse((await cli('funnel', '--by', 'batch', '--json')).stdout).rows.map(
      (row: { batch: { id: number; chosenBy: string } }) => row.batch,
    )
    expect(batches.map((batch: { chosenBy: string }) => batch.chosenBy)).toEqual([
      '--next 10 --domain edu --tag shortlist',
      '--next 1 --domain ac.uk',
    ])
    const [one, two] = batches.map((batch: { id: number }) => String(batch.id))
    // Invited again, percy's latest invitation is the third batch's, no longer the first's.
    expect((await cli('invite', '--resend', 'percy@cs.stanford.edu')).code).toBe(0)
    expect(await listed('--batch', one)).toEqual(['ann@stanford.edu', 'bo@mit.edu'])
    expect(await listed('--batch', two)).toEqual(['dan@ox.ac.uk'])
    expect(await listed('--batch', one, '--batch', two, '--tag', 'shortlist')).toEqual([
      'ann@stanford.edu',
      'bo@mit.edu',
    ])
    expect(await cli('count', '--batch', 'first')).toMatchObject({ code: 2 })
  })

  it('no message and no webhook carries a tag or the note', async ({ mail, receiver }) => {
    const { sink } = mail
    await sink.waitFor(() => sink.received.length >= 5, 'the invitation sent again')
    for (const received of sink.received) {
      const text = received.raw.toString('utf8')
      expect(text).not.toContain('NeurIPS')
      expect(text).not.toMatch(/shortlist|ask-again/)
    }
    await receiver.waitFor(() => receiver.delivered().length > 0, 'webhooks')
    for (const request of receiver.requests) expect(request.body).not.toMatch(/NeurIPS|shortlist|ask-again/)
  })

  it('remove erases the tags and the note with the entry', async ({ mail, cli }) => {
    const { db } = mail.database
    const marksOf = async () =>
      (
        await db.query<{ tags: string[] }>(
          `select m.tags from private.entry_marks m join public.waitlist w on w.id = m.waitlist_id
            where w.email = 'percy@cs.stanford.edu'`,
        )
      ).map((row) => row.tags)
    const [row] = await db.query<{ id: string }>(
      `select id::text from public.waitlist where email = 'percy@cs.stanford.edu'`,
    )
    expect(await marksOf()).toEqual([['ask-again', 'shortlist']])
    expect((await cli('remove', 'percy@cs.stanford.edu')).code).toBe(0)
    const [left] = await db.query<{ marks: number; events: number }>(
      `select (select count(*)::int from private.entry_marks where waitlist_id = $1::bigint) as marks,
              (select count(*)::int from private.entry_events where waitlist_id = $1::bigint) as events`,
      [row?.id],
    )
    expect(left).toEqual({ marks: 0, events: 0 })
    expect((await cli('count', '--tag', 'ask-again')).stdout).toBe('1\n')
  })
})

describe('a 51st tag (issue 61, item 8)', () => {
  it('is refused for the entry that has 50, naming it; the others are tagged; exit 0, or 1 when none could be', async ({
    cli,
    scratch,
  }) => {
    const fifty = Array.from({ length: 50 }, (_, n) => `t${String(n + 1).padStart(2, '0')}`)
    const file = await scratch.file(
      'fifty.csv',
      `email,tags\nfull.tags@example.org,${fifty.join(' ')}\nroomy.tags@example.org,t01\n`,
    )
    expect(await cli('import', file)).toMatchObject({ code: 0 })
    const tagsOf = async (email: string) => JSON.parse((await cli('show', email, '--json')).stdout).tags
    expect(await tagsOf('full.tags@example.org')).toHaveLength(50)

    const both = await cli('tag', 'full.tags@example.org', 'roomy.tags@example.org', 'shortlist-51')
    expect(both).toMatchObject({
      code: 0,
      stdout: 'Tagged 1 entry shortlist-51.\n',
      stderr: 'full.tags@example.org has 50 tags, the most an entry carries: not tagged shortlist-51.\n',
    })
    expect(await tagsOf('roomy.tags@example.org')).toEqual(['shortlist-51', 't01'])
    expect(await tagsOf('full.tags@example.org')).toEqual(fifty)
    // A tag it has already is no 51st: said as for any entry.
    expect(await cli('tag', 'full.tags@example.org', 't07')).toMatchObject({
      code: 0,
      stdout: 'Tagged 0 entries t07.\n1 entry already had it: full.tags@example.org\n',
    })
    // Nothing asked could be done: exit 1, and it says why.
    expect(await cli('tag', 'FULL.tags@example.org', 'another')).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'full.tags@example.org has 50 tags, the most an entry carries: not tagged another.\n',
    })
  })
})
