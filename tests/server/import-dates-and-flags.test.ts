import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../harness/waitlist-cli'
import { writeCsv } from '../support/csv-files'

/**
 * Issue 64: a file's dates in the order its first 1,000 rows show (a later row against it is named
 * by its line; a file that cannot tell asks for --dates), times in --timezone, and the flags that
 * place what the headers do not: --column, --map-file. All through the dry run, which needs no
 * database and shows the rows as they will be stored.
 */
let scratch: string
// No database: a dry run before the first start checks the file alone.
let env: Record<string, string>

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'import-dates-and-flags-'))
  env = { DATA_DIR: join(scratch, 'no-data-yet') }
})

afterAll(() => rm(scratch, { recursive: true, force: true }))

const dryRun = (...args: string[]) => runCli(env, 'import', ...args, '--dry-run')

/** The rows the dry run shows as they will be stored. */
const shownRows = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('  {'))
    .map((line) => JSON.parse(line))

describe('dates as the file has them', () => {
  it('decides month-first from the first 1,000 rows, and names a later row that is day-first', async () => {
    const rows = Array.from({ length: 1000 }, (_, n) => `p${n}@dates.example,10/${(n % 17) + 13}/2024`)
    const path = await writeCsv(scratch, 'us.csv', [
      'email,created_at',
      ...rows,
      'late@dates.example,14/10/2024',
    ])
    const refused = await dryRun(path)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      `${path}: 1 bad line; nothing was imported.\n` +
        '  line 1002: created_at "14/10/2024": not a date in this file\'s order, month first ' +
        '(as its first 1,000 rows have it); --dates dmy reads the file day first',
    )
    const first = await dryRun(await writeCsv(scratch, 'us-good.csv', ['email,created_at', ...rows]))
    expect(first.code).toBe(0)
    expect(shownRows(first.stdout)[0]).toMatchObject({ created_at: '2024-10-13T00:00:00.000Z' })
  })

  it('asks for --dates when no row tells, and reads the order given', async () => {
    const path = await writeCsv(scratch, 'either.csv', [
      'email,created_at',
      'a@dates.example,01/02/2024',
      'b@dates.example,03/04/2024 18:00',
    ])
    const asked = await dryRun(path)
    expect(asked).toMatchObject({ code: 1, stdout: expect.not.stringContaining('Dry run:') })
    expect(asked.stderr).toContain(
      `${path}: its dates (such as "01/02/2024") could be month or day first, and its first 1,000 rows do not tell; ` +
        'say which: --dates mdy (10/14/2024) or --dates dmy (14/10/2024)',
    )
    const dayFirst = await dryRun(path, '--dates', 'dmy')
    expect(dayFirst.code).toBe(0)
    expect(shownRows(dayFirst.stdout).map((row) => row.created_at)).toEqual([
      '2024-02-01T00:00:00.000Z',
      '2024-04-03T18:00:00.000Z',
    ])
    expect(await dryRun(path, '--dates', 'ymd')).toMatchObject({ code: 2 })
  })

  it('reads a time without a zone in --timezone, one with a zone as it says', async () => {
    const path = await writeCsv(scratch, 'vienna.csv', [
      'email,created_at',
      'summer@dates.example,2024-07-01 12:00',
      'winter@dates.example,2024-01-15 12:00:30',
      'zoned@dates.example,2024-07-01T12:00:00Z',
    ])
    const vienna = await dryRun(path, '--timezone', 'Europe/Vienna')
    expect(vienna.code).toBe(0)
    expect(shownRows(vienna.stdout).map((row) => row.created_at)).toEqual([
      '2024-07-01T10:00:00.000Z',
      '2024-01-15T11:00:30.000Z',
      '2024-07-01T12:00:00.000Z',
    ])
    const utc = await dryRun(path)
    expect(shownRows(utc.stdout)[0]).toMatchObject({ created_at: '2024-07-01T12:00:00.000Z' })
    const bad = await dryRun(path, '--timezone', 'Europe/Atlantis')
    expect(bad).toMatchObject({ code: 2 })
    expect(bad.stderr).toContain('--timezone "Europe/Atlantis" is not a time zone')
  })
})

describe('placing what the headers do not', () => {
  it('--column points a column at a field, or leaves it out; a header it names must be there', async () => {
    const path = await writeCsv(scratch, 'columns.csv', [
      'Contact,Who are you?,Where from,Badge',
      'ada@flags.example,Ada Lovelace,Meetup,B-12',
    ])
    const placed = await dryRun(
      path,
      '--column',
      'who are you?=name',
      '--column',
      'Where from=source',
      '--column',
      'Badge=-',
    )
    expect(placed.code).toBe(0)
    expect(placed.stdout).toContain(
      '  Contact       → the address\n' +
        '  Who are you?  → the name\n' +
        '  Where from    → the source\n' +
        '  Badge         → left out (--column)\n',
    )
    expect(shownRows(placed.stdout)).toEqual([
      {
        email: 'ada@flags.example',
        name: 'Ada Lovelace',
        created_at: expect.any(String),
        status: 'waiting',
        source: 'meetup', // one source, one spelling (issue 64, item 4)
      },
    ])
    const missing = await dryRun(path, '--column', 'Company=organisation')
    expect(missing).toMatchObject({ code: 1 })
    expect(missing.stderr).toContain('--column names a header it does not have: company')
    const unknown = await dryRun(path, '--column', 'Badge=badge')
    expect(unknown).toMatchObject({ code: 2 })
    expect(unknown.stderr).toContain(
      '--column needs "HEADER=FIELD" with FIELD one of email, name, first_name',
    )
  })

  it('finds the address by its contents when no header names it', async () => {
    const path = await writeCsv(scratch, 'contents.csv', [
      'Person,Reach',
      'Ada,ada@flags.example',
      'Grace,grace@flags.example',
    ])
    const found = await dryRun(path)
    expect(found.code).toBe(0)
    expect(found.stdout).toContain('  Reach   → the address\n  (Reach holds addresses)\n')
    expect(shownRows(found.stdout)[1]).toMatchObject({
      email: 'grace@flags.example',
      details: { Person: 'Grace' },
    })
  })

  it('--map-file maps many job titles at once; a tab-separated file reads as well', async () => {
    const roles = await writeCsv(scratch, 'roles.csv', [
      'id,value,choice',
      'role,Staff Engineer,Engineering',
      'role,"Head of Research, EMEA",research',
      'role,CTO,Founder or executive',
    ])
    const path = await writeCsv(scratch, 'titles.tsv', [
      'email\tjob title',
      'a@flags.example\tStaff Engineer',
      'b@flags.example\tHead of Research, EMEA',
      'c@flags.example\tcto',
    ])
    const mapped = await dryRun(path, '--column', 'job title=role', '--map-file', roles)
    expect(mapped.code).toBe(0)
    expect(shownRows(mapped.stdout).map((row) => row.answers)).toEqual([
      { role: 'Engineering' },
      { role: 'Research' },
      { role: 'Founder or executive' },
    ])
    const bad = await writeCsv(scratch, 'bad-roles.csv', ['role,Staff Engineer'])
    expect(await dryRun(path, '--map-file', bad)).toMatchObject({ code: 2 })
  })
})
