import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { runCli } from '../../harness/waitlist-cli'

/**
 * Issue 50: the lab's own list comes in as it is. Its sheet names a question by its id, spells
 * choices its own way, writes plain dates, and has columns import does not know; `--map` and the
 * note take them. A sheet with errors is refused whole, every error of every line named with its
 * value; the counts read as English.
 */
const SHEET = [
  'Email,Name,created_at,Role,answer_organisation,Notes,Tags',
  'ada@lab.org,Ada Lovelace,2024-09-01,Engineer,Analytical Engines,met at NeurIPS,Shortlist',
  'grace@lab.org,Grace Hopper,2024-09-02 14:30,  research ,Navy,,',
  'alan@lab.org,,2024-09-03T10:00:00+02:00,PM,,"asked twice; ""keen""",partner shortlist',
  'edsger@lab.org,Edsger,1725361200,engineering,,,',
]

let server: TestServer
let scratch: string

beforeAll(async () => {
  server = await startTestServer()
  scratch = await mkdtemp(join(tmpdir(), 'import-lab-sheet-'))
})

afterAll(async () => {
  await server?.cleanup()
  await rm(scratch, { recursive: true, force: true })
})

async function sheet(name: string, lines: readonly string[]): Promise<string> {
  const file = join(scratch, name)
  await writeFile(file, `${lines.join('\n')}\n`)
  return file
}

const cli = (...args: string[]) => runCli(server.env, ...args)
const MAPS = ['--map', 'role:Engineer=Engineering', '--map', 'role:pm=product']

describe("import reads the lab's own sheet", () => {
  it('the dry run says where each column goes, and writes nothing', async () => {
    const file = await sheet('lab.csv', SHEET)
    const dry = await cli('import', file, '--dry-run', ...MAPS)
    expect(dry).toMatchObject({ code: 0, stderr: '' })
    expect(dry.stdout.split('\n')).toEqual([
      `How import reads the columns of ${file}:`,
      '  Email                → the address',
      '  Name                 → the name',
      '  created_at           → when they signed up (a date is midnight; a time without a zone is UTC unless --timezone)',
      '  Role                 → the answer to "Your role" (answer_role, a choice in any letter case; engineer → Engineering, pm → Product)',
      '  answer_organisation  → the answer to "Organisation" (answer_organisation)',
      "  Notes                → the team's note",
      '  Tags                 → the tags (split at commas and spaces, quotes removed)',
      '',
      'The first 3 rows as they will be stored:',
      '  {"email":"ada@lab.org","name":"Ada Lovelace","created_at":"2024-09-01T00:00:00.000Z","status":"waiting","tags":["shortlist"],"note":"met at NeurIPS","answers":{"role":"Engineering","organisation":"Analytical Engines"}}',
      '  {"email":"grace@lab.org","name":"Grace Hopper","created_at":"2024-09-02T14:30:00.000Z","status":"waiting","answers":{"role":"Research","organisation":"Navy"}}',
      '  {"email":"alan@lab.org","created_at":"2024-09-03T08:00:00.000Z","status":"waiting","tags":["partner","shortlist"],"note":"asked twice; \\"keen\\"","answers":{"role":"Product"}}',
      `Dry run: ${file} holds 4 entries; 4 would be added, 0 are already on the list and would be skipped. Nothing was written.`,
      '',
    ])
    expect((await cli('count')).stdout).toBe('0\n')
  })

  it('adds it: plain dates, mapped and differently cased roles, the name beside the entry, notes, tags', async () => {
    const imported = await cli('import', await sheet('lab.csv', SHEET), ...MAPS)
    expect(imported).toMatchObject({ code: 0, stderr: '' })
    expect(imported.stdout).toContain('4 added; 0 are already on the list (skipped).')
    const lines = (await cli('list', '--json')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines).toMatchObject([
      {
        email: 'ada@lab.org',
        name: 'Ada Lovelace',
        status: 'waiting',
        source: null,
        answers: { role: 'Engineering', organisation: 'Analytical Engines' },
        tags: ['shortlist'],
        note: 'met at NeurIPS',
        created_at: '2024-09-01T00:00:00.000000Z',
      },
      {
        email: 'grace@lab.org',
        name: 'Grace Hopper',
        status: 'waiting',
        source: null,
        answers: { role: 'Research', organisation: 'Navy' },
        tags: [],
        note: null,
        created_at: '2024-09-02T14:30:00.000000Z',
      },
      {
        email: 'alan@lab.org',
        name: null,
        status: 'waiting',
        source: null,
        answers: { role: 'Product' },
        tags: ['partner', 'shortlist'],
        note: 'asked twice; "keen"',
        created_at: '2024-09-03T08:00:00.000000Z',
      },
      {
        email: 'edsger@lab.org',
        name: 'Edsger',
        status: 'waiting',
        source: null,
        answers: { role: 'Engineering' },
        tags: [],
        note: null,
        created_at: '2024-09-03T11:00:00.000000Z',
      },
    ])
    expect((await cli('count', '--tag', 'shortlist', '--answer', 'role=Engineering')).stdout).toBe('1\n')
    const names = (await cli('export')).stdout.split('\r\n').map((line) => line.split(',').at(-1))
    expect(names).toEqual(['name', 'Ada Lovelace', 'Grace Hopper', '', 'Edsger', ''])
  })

  it('reads a sheet again: listed entries skipped, in English; --ignore-unknown leaves the other columns out', async () => {
    const again = await sheet('again.csv', [
      'email,role,badge',
      'ada@lab.org,Research,B-12',
      'barbara@lab.org,Other,B-13',
    ])
    const imported = await cli('import', again, '--ignore-unknown')
    expect(imported.stdout).toContain('1 added; 1 is already on the list (skipped).')
    const barbara = JSON.parse((await cli('show', 'barbara@lab.org', '--json')).stdout)
    expect(barbara).toMatchObject({ answers: { role: 'Other' }, note: null, tags: [], details: {} })
    const dry = await cli('import', again, '--dry-run', '--ignore-unknown')
    expect(dry.stdout).toContain('  badge  → left out (--ignore-unknown)')
    const kept = await cli('import', again, '--dry-run')
    expect(kept.stdout).toContain('  badge  → kept as a detail of the entry')
    expect(dry.stdout).toContain('0 would be added, 2 are already on the list and would be skipped.')
  })

  it('lists every error of every line with the value refused, and adds nothing; a row without a usable address is not one', async () => {
    const bad = await sheet('bad.csv', [
      'email,created_at,role,organisation,tags',
      'ok@lab.org,2024-09-01,Research,,',
      'bad one,yesterday,Astronaut,,',
      'also@lab.org,2024-02-30,Engineer,,Short List!',
      `long@lab.org,20260901,,${'x'.repeat(101)},`,
    ])
    const refused = await cli('import', bad)
    expect(refused).toMatchObject({ code: 1, stdout: '' })
    const forms =
      'a date or time such as 2024-09-01, 2024-09-01 09:00 (UTC), 2024-09-01T09:00:00+02:00, 09/14/2024, 14.09.2024 or Unix seconds'
    const choices = 'Research, Engineering, Product, Founder or executive, Other'
    expect(refused.stderr.split('\n')).toEqual([
      `${bad}: 1 row without a usable address would be skipped:`,
      '  line 3: email "bad one": not a valid e-mail address; skipped',
      `${bad}: 5 errors on 2 lines; nothing was imported.`,
      `  line 4: created_at "2024-02-30": not ${forms}`,
      `  line 4: role "Engineer": not one of ${choices} (--map role:Engineer=CHOICE maps it)`,
      '  line 4: tags "Short List!": a tag is one word of up to 32 characters (a-z, 0-9, - and _, e.g. shortlist), not "List!"',
      `  line 5: created_at "20260901": not ${forms}`,
      `  line 5: organisation "${'x'.repeat(60)}"…: over 100 characters`,
      '',
    ])
    expect((await cli('count')).stdout).toBe('5\n')
  })

  it('lists the first 100 errors, then counts the rest', async () => {
    const lines = Array.from({ length: 51 }, (_, n) => `person${n}@lab.org,someday,Astronaut`)
    const many = await sheet('many.csv', ['email,created_at,role', ...lines])
    const refused = await cli('import', many)
    expect(refused).toMatchObject({ code: 1, stdout: '' })
    const printed = refused.stderr.trimEnd().split('\n')
    expect(printed[0]).toBe(`${many}: 102 errors on 51 lines; nothing was imported.`)
    expect(printed.filter((line) => line.startsWith('  line '))).toHaveLength(100)
    expect(printed.at(-2)).toMatch(/^ {2}line 51: role "Astronaut"/)
    expect(printed.at(-1)).toBe('  … and 2 more errors')
    expect((await cli('count')).stdout).toBe('5\n')
  })

  it('refuses a --map that names no choice question or no choice (exit 2)', async () => {
    const file = await sheet('one.csv', ['email', 'x@lab.org'])
    const unknown = await cli('import', file, '--map', 'organisation:ACME=Acme')
    expect(unknown).toMatchObject({ code: 2 })
    expect(unknown.stderr).toContain('--map needs ID:VALUE=CHOICE with ID one of role')
    const noChoice = await cli('import', file, '--map', 'role:Engineer=Engineers')
    expect(noChoice).toMatchObject({ code: 2 })
    expect(noChoice.stderr).toContain(`--map role: "Engineers" is not one of Research, Engineering`)
  })
})
