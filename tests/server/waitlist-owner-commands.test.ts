import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS, emptyDatabaseOn, startServerOn, stopBackends } from '../../harness/backends'
import type { TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'
import { renderBarChart } from '../../owner/cli/bar-chart'
import { toCsv } from '../../server/waitlist/admin/csv'
import { emailProblem } from '../../server/waitlist/admin/email-rule'

// Valid under the database's WHATWG grammar, yet awkward for CSV and shells.
const TRICKY = [
  "o'brien+list@example.com",
  'first.last@sub.example.co',
  "a!#$%&'*+/=?^_`{|}~-@example.org",
  'UPPER@Example.COM',
  // Cells a spreadsheet would run as formulas, and addresses that begin with ': export escapes
  // them, and import must take off exactly that escape.
  '=1+1-x@example.com',
  '+x@example.com',
  '-x@example.com',
  "'x@example.com",
  "''=x@example.com",
]

let work: string
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'owner-commands-'))
})
afterAll(async () => {
  await stopBackends()
  await rm(work, { recursive: true, force: true })
})

/** A CSV file in the test's scratch directory. */
async function csvFile(name: string, content: string | Buffer): Promise<string> {
  const path = join(work, name)
  await writeFile(path, content)
  return path
}

function daysAgo(days: number, hour = 12): string {
  const now = new Date()
  return new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - days, hour, 30, 0, 123),
  ).toISOString()
}

describe.each(BACKENDS)('owner commands on $name', ({ name }) => {
  it('remove erases an address in any letter case, and the person may sign up again', async () => {
    let server: TestServer | undefined = await startServerOn(name)
    try {
      expect((await postWaitlist(server, { email: 'Erase.Me@Example.com' })).status).toBe(201)
      expect((await postWaitlist(server, { email: 'stays@example.com' })).status).toBe(201)
      expect((await postWaitlist(server, { email: 'erase.me@example.com' })).status).toBe(409)
      const env = server.env
      await server.stop()

      const removed = await runCli(env, 'remove', 'ERASE.ME@example.COM')
      expect(removed).toMatchObject({ code: 0 })
      // The address as stored, not as typed.
      expect(removed.stdout).toBe(
        'Removed Erase.Me@Example.com from the waitlist. Imports now skip it until it signs up again ' +
          'and confirms the address (or `unsuppress` allows it).\n',
      )
      const again = await runCli(env, 'remove', 'erase.me@example.com')
      expect(again, 'nothing asked was done').toMatchObject({ code: 1 })
      expect(again.stdout).toContain('is not on the waitlist')
      expect((await runCli(env, 'list')).stdout).not.toMatch(/erase\.me/i)
      expect((await runCli(env, 'count')).stdout).toBe('1\n')

      server = await startServerOn(name, { dataDir: env.DATA_DIR, env })
      expect((await postWaitlist(server, { email: 'Erase.Me@Example.com' })).status).toBe(201)
    } finally {
      await server?.cleanup()
    }
  })

  it('export, import into a fresh database, import again: the same entries, created_at kept', async () => {
    const source = await startServerOn(name)
    // No server on it: the embedded cluster has one owner at a time, and here that is the CLI.
    const { env: target, cleanup } = await emptyDatabaseOn(name)
    try {
      for (const email of TRICKY) expect((await postWaitlist(source, { email })).status).toBe(201)
      await source.stop()
      const exported = join(work, `export-${name}.csv`)
      expect(await runCli(source.env, 'export', '--out', exported)).toMatchObject({ code: 0 })

      const dryRun = await runCli(target, 'import', exported, '--dry-run')
      expect(dryRun).toMatchObject({ code: 0 })
      expect(dryRun.stdout).toContain(`${TRICKY.length} would be added, 0 are already on the list`)
      expect((await runCli(target, 'count')).stdout).toBe('0\n')

      const first = await runCli(target, 'import', exported)
      expect(first).toMatchObject({ code: 0 })
      expect(first.stdout).toContain(`${TRICKY.length} added; 0 are already on the list (skipped)`)
      const second = await runCli(target, 'import', exported)
      expect(second.stdout).toContain(`0 added; ${TRICKY.length} are already on the list (skipped)`)
      expect((await runCli(target, 'count')).stdout).toBe(`${TRICKY.length}\n`)
      // The same file comes back out: addresses, letter case, order and created_at to the microsecond.
      const csv = await readFile(exported, 'utf8')
      expect((await runCli(target, 'export')).stdout).toBe(csv)
      expect(csv).toContain(`\r\n"'=1+1-x@example.com",`)
      expect(csv).toContain(`\r\n"''x@example.com",`)
      // Byte for byte the addresses that went in, read back from the new database.
      const listed = (await runCli(target, 'list')).stdout.trim().split('\n')
      expect(listed.map((line) => line.split('  ')[1])).toEqual(TRICKY)
    } finally {
      await source.cleanup()
      await cleanup()
    }
  })

  it('a bad file adds nothing, not even its good lines', async () => {
    const { env, cleanup } = await emptyDatabaseOn(name)
    try {
      const bad = await csvFile(
        `bad-${name}.csv`,
        toCsv(
          ['email', 'created_at'],
          [
            ['good@example.com', daysAgo(1)],
            ['bad.time@example.com', 'someday'],
          ],
        ),
      )
      const result = await runCli(env, 'import', bad)
      expect(result).toMatchObject({ code: 1 })
      expect(result.stderr).toContain('1 bad line; nothing was imported.')
      expect(result.stderr).toContain('line 3: created_at "someday": not a date')
      expect((await runCli(env, 'count')).stdout).toBe('0\n')
    } finally {
      await cleanup()
    }
  })

  it('stats draws signups per day and gives the total', async () => {
    const { env, cleanup } = await emptyDatabaseOn(name)
    try {
      const rows = [
        ['old@example.com', daysAgo(40)],
        ['two.days@example.com', daysAgo(2)],
        ['today.1@example.com', daysAgo(0, 0)],
        ['today.2@example.com', daysAgo(0, 0)],
      ]
      expect(
        await runCli(env, 'import', await csvFile(`stats-${name}.csv`, toCsv(['email', 'created_at'], rows))),
      ).toMatchObject({ code: 0 })
      const stats = await runCli(env, 'stats', '--days', '3')
      expect(stats).toMatchObject({ code: 0 })
      const lines = stats.stdout.split('\n').filter((line) => /^\d{4}-\d\d-\d\d /.test(line))
      expect(lines).toEqual([
        `${daysAgo(2).slice(0, 10)}  1  ${'█'.repeat(20)}`,
        `${daysAgo(1).slice(0, 10)}  0`,
        `${daysAgo(0).slice(0, 10)}  2  ${'█'.repeat(40)}`,
      ])
      expect(stats.stdout).toContain('3 in the last 3 days; 4 on the list in total.')
      const all = await runCli(env, 'stats', '--days', 'all')
      expect(all.stdout.split('\n').filter((line) => /^\d{4}-/.test(line))).toHaveLength(41)
      expect(all.stdout).toContain('\n4 since the first signup; 4 on the list in total.')
      const day = await runCli(env, 'stats', '--days', '1')
      expect(day.stdout).toContain('Signups per day, the last day (UTC):')
      expect(day.stdout).toContain('\n2 in the last day; 4 on the list in total.')
    } finally {
      await cleanup()
    }
  })

  describe('the address rule import checks', () => {
    let server: TestServer
    beforeAll(async () => {
      server = await startServerOn(name)
    })
    afterAll(async () => {
      await server?.cleanup()
    })

    it('is the database’s own: the insert accepts exactly what emailProblem accepts', async () => {
      const fixed = [
        'a@b',
        'a@b.c',
        '.a@b.co',
        'a@-b.co',
        'a@b-.co',
        'a@b..co',
        'a@b.co.',
        ' a@b.co',
        'a@b.co ',
        'a b@c.co',
        'ü@b.co',
        'a@ü.co',
        '"a"@b.co',
        'a@@b.co',
        '@b.co',
        'a@',
        `${'a'.repeat(64)}@${'b'.repeat(63)}.co`,
        `a@${'b'.repeat(64)}.co`,
        `${'a'.repeat(240)}@example.com`,
        `${'a'.repeat(245)}@example.com`,
        'a@b.co\n',
      ]
      const generated = fc.sample(fc.stringMatching(/^[a-z.+'"!@ü -]{1,6}@[a-z0-9.-]{0,8}$/), {
        numRuns: 120,
        seed: 11,
      })
      const seen = new Set<string>()
      for (const [index, email] of [...fixed, ...generated].entries()) {
        // Distinct addresses, so a 409 never stands in for a refusal.
        const unique = fixed.includes(email) ? email : `x${index}${email}`
        if (seen.has(unique.toLowerCase())) continue
        seen.add(unique.toLowerCase())
        const status = (await postWaitlist(server, { email: unique })).status
        expect(status, JSON.stringify(unique)).toBe(emailProblem(unique) ? 400 : 201)
      }
    })
  })
})

describe('import refuses a bad file with a clear message', () => {
  // The file's start is checked before the database is opened: no database needed, nothing written.
  const env = { DATA_DIR: '/nonexistent-data-dir' }

  it('a file that is not CSV text', async () => {
    const png = await csvFile('picture.csv', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))
    const result = await runCli(env, 'import', png)
    expect(result).toMatchObject({ code: 1 })
    expect(result.stderr).toContain('is not a CSV text file')
  })

  it('the wrong header, or none', async () => {
    const wrong = await runCli(
      env,
      'import',
      await csvFile('wrong.csv', 'Phone,Date\r\n+1 555 0100,2024-11-01\r\n'),
    )
    expect(wrong).toMatchObject({ code: 1 })
    expect(wrong.stderr).toContain(
      'does not start with a header line import reads (found "Phone,Date"): it has no email column, by its header or its contents. ' +
        'The first line names the columns: email (or Email Address, E-mail, a question asking for it), and any others: ' +
        'the columns `npm run waitlist -- export` writes, a name, first and last name, company, a sign-up time, tags, ' +
        'and any column of its own, kept as a detail',
    )
    const empty = await runCli(env, 'import', await csvFile('empty.csv', ''))
    expect(empty.stderr).toContain('is empty; its first line names the columns: email (or Email Address')
  })

  it('a missing file, or no file named', async () => {
    const missing = await runCli(env, 'import', join(work, 'nope.csv'))
    expect(missing).toMatchObject({ code: 1 })
    expect(missing.stderr).toContain('nope.csv: no such file')
    const none = await runCli(env, 'import')
    expect(none).toMatchObject({ code: 2 })
    expect(none.stderr).toContain('import needs the CSV file to read')
  })
})

const TIME_FORMS =
  'a date or time such as 2024-09-01, 2024-09-01 09:00 (UTC), 2024-09-01T09:00:00+02:00, 09/14/2024, 14.09.2024 or Unix seconds'

describe('import reads the lines as they stream in, into one transaction', () => {
  // The lines are checked on their way into the database: these need one (nothing is written).
  const header = 'email,created_at\r\n'
  let database: Awaited<ReturnType<typeof emptyDatabaseOn>>
  beforeAll(async () => {
    database = await emptyDatabaseOn('postgres')
  })

  it('duplicates, invalid addresses and times, and wrong field counts, each by line number', async () => {
    const lines = [
      'Dup@example.com,2024-11-01T09:00:00.000000Z',
      'dup@EXAMPLE.com,2024-11-02T09:00:00.000000Z',
      'no-at-sign.example.com,2024-11-01T09:00:00.000000Z',
      'ok@example.com,2024-02-30T09:00:00Z',
      'ok2@example.com,2024-11-01 24:00:00',
      'lonely@example.com',
      'a@b.co,2024-11-01T09:00:00Z,extra',
      '',
      '"multi',
      'line@x.co",2024-11-01T09:00:00Z',
      'fine@example.com,2024-11-01T09:00:00+01:00',
    ]
    const result = await runCli(
      database.env,
      'import',
      await csvFile('lines.csv', `${header}${lines.join('\r\n')}\r\n`),
    )
    expect(result).toMatchObject({ code: 1, stdout: '' })
    // The rows without a usable address would be skipped; the others' errors stop the file.
    expect(result.stderr.split('\n')).toEqual([
      expect.stringContaining('2 rows without a usable address would be skipped:'),
      '  line 4: email "no-at-sign.example.com": not a valid e-mail address; skipped',
      '  line 10: email "multi\\r\\nline@x.co": not a valid e-mail address; skipped',
      expect.stringContaining('5 bad lines; nothing was imported.'),
      '  line 3: the same address as line 2',
      `  line 5: created_at "2024-02-30T09:00:00Z": not ${TIME_FORMS}`,
      `  line 6: created_at "2024-11-01 24:00:00": not ${TIME_FORMS}`,
      '  line 7: expected 2 fields (email,created_at), found 1',
      '  line 8: expected 2 fields (email,created_at), found 3',
      '',
    ])
  })

  it('a quote left open, or a stray one: not CSV, and nothing imported', async () => {
    const open = await runCli(
      database.env,
      'import',
      await csvFile('quotes.csv', `${header}"a@b.co,2024-11-01Z\r\n`),
    )
    expect(open).toMatchObject({ code: 1 })
    expect(open.stderr).toMatch(/is not valid CSV: Quote Not Closed/)
    const stray = await runCli(
      database.env,
      'import',
      await csvFile(
        'stray.csv',
        `${header}ok@example.com,2024-11-01T09:00:00Z\r\na"b@x.co,2024-11-01T09:00:00Z\r\n`,
      ),
    )
    expect(stray).toMatchObject({ code: 1 })
    expect(stray.stderr).toContain(
      'is not valid CSV: Invalid Opening Quote: a quote inside field 1 at line 3',
    )
    expect((await runCli(database.env, 'count')).stdout).toBe('0\n')
  })

  it('a bad line after thousands of good ones (many COPY chunks in) adds nothing', async () => {
    const good = Array.from({ length: 5000 }, (_, index) => [
      `stream.${index}@example.com`,
      daysAgo(index % 40),
    ])
    const late = await csvFile(
      'late.csv',
      toCsv(['email', 'created_at'], [...good, ['late.bad@example.com', 'someday']]),
    )
    const refused = await runCli(database.env, 'import', late)
    expect(refused).toMatchObject({ code: 1 })
    expect(refused.stderr).toContain(
      `1 bad line; nothing was imported.\n  line ${good.length + 2}: created_at "someday": not a date`,
    )
    expect((await runCli(database.env, 'count')).stdout).toBe('0\n')
  })
})

describe('stats and remove usage', () => {
  it('refuses a --days that is not a number of days, and remove without an address', async () => {
    const env = { DATA_DIR: '/nonexistent-data-dir' }
    const days = await runCli(env, 'stats', '--days', 'lots')
    expect(days).toMatchObject({ code: 2 })
    expect(days.stderr).toContain('--days needs a number of days (1-3660) or all, not "lots"')
    expect(await runCli(env, 'remove')).toMatchObject({ code: 2 })
  })

  it('scales bars to the busiest day, with a sliver for any signup', () => {
    const chart = renderBarChart(
      [
        { day: '2024-11-01', count: 0 },
        { day: '2024-11-02', count: 1 },
        { day: '2024-11-03', count: 1000 },
      ],
      10,
    )
    expect(chart.split('\n')).toEqual([
      '2024-11-01     0',
      '2024-11-02     1  ▏',
      '2024-11-03  1000  ██████████',
    ])
  })
})
