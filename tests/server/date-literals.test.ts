import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Issue 60: the suite passed in November and failed on December 1st, because a test imported
 * entries dated November 1st and read them back through a 30-day window. The reports window their
 * rows from today (the server's clock, PostgreSQL's now()), and the longest window is 90 days; so a
 * date a test writes by hand must be over a year old, where no window of today's ever reaches it,
 * or be taken from the day the test runs (tests/support/relative-dates.ts). This walks every test
 * file for a date written less than a year before today, or after it.
 *
 * Not dates: a comment's (when something was measured), the product's own example in a message it
 * prints ("a date such as 2026-09-01"), and the files below, which say why theirs cannot meet a
 * window. Keep the list short: a date that meets no window can as well be written in an older year.
 */
const SAFE: Record<string, string> = {
  'tests/support/mcp-raw.ts': 'MCP 2026-07-28 is the name of a revision of the protocol, not a day',
  'tests/server/mcp-eras.test.ts':
    "MCP's revisions, 2026-07-28 and an unknown 2099-01-01, name protocols, not days",
}

const ROOT = join(import.meta.dirname, '../..')
const YEAR_MS = 366 * 86_400_000
const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec'

/** The dates a line writes: 2026-11-01 (or 2026-11-0${n}), Date.UTC(2030, 0, 15), 25 Nov 2026. */
function datesIn(line: string): { text: string; at: number }[] {
  const found: { text: string; at: number }[] = []
  // Quoting the product's examples, as its message prints them, writes no date of the test's own.
  const examples = line.indexOf('such as ')
  for (const match of line.matchAll(
    /(?<![\w.])(20\d\d)-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01])|-\d?\$\{)?/g,
  )) {
    if (examples >= 0 && (match.index ?? 0) > examples) continue
    found.push({
      text: match[0],
      at: Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3] ?? 1)),
    })
  }
  for (const match of line.matchAll(/(?:Date\.UTC|new Date)\(\s*(20\d\d)\s*,\s*(\d{1,2})/g))
    found.push({ text: match[0], at: Date.UTC(Number(match[1]), Number(match[2])) })
  for (const match of line.matchAll(new RegExp(`\\b(\\d{1,2}) (${MONTHS}) (20\\d\\d)\\b`, 'g')))
    found.push({ text: match[0], at: Date.parse(`${match[1]} ${match[2]} ${match[3]} UTC`) })
  return found
}

/** The line without its comment: a `//` not inside a URL, or a line of a block comment. */
function code(line: string): string {
  const trimmed = line.trim()
  if (trimmed.startsWith('*') || trimmed.startsWith('/*') || trimmed.startsWith('//')) return ''
  return line.replace(/(^|[^:'"`])\/\/.*$/, '$1')
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [path] : []
  })
}

/** tests/ and harness/ whole, and the unit tests beside the code they test. */
function filesToRead(): string[] {
  const beside = ['src', 'server', 'owner', 'contract', 'scripts'].flatMap((dir) =>
    testFiles(join(ROOT, dir)).filter((path) => /\.test\.tsx?$/.test(path)),
  )
  return [...testFiles(join(ROOT, 'tests')), ...testFiles(join(ROOT, 'harness')), ...beside]
}

describe('dates written by hand in the tests', () => {
  it('reads the forms a test writes', () => {
    const at = (line: string) => datesIn(line).map(({ text }) => text)
    expect(at(`'a@b.co,2026-11-01T09:00:00Z'`)).toEqual(['2026-11-01'])
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template, read as a test writes it
    expect(at('`${email},2026-11-0${index + 1}T09:00:00Z`')).toEqual(['2026-11-0${'])
    expect(at('const DAY_ONE = Date.UTC(2030, 0, 15, 12)')).toEqual(['Date.UTC(2030, 0'])
    expect(at(`'Arrival-Date: Wed, 25 Nov 2026 10:00:00 +0000'`)).toEqual(['25 Nov 2026'])
    expect(at(`'--since needs a date such as 2026-11-01'`)).toEqual([])
    expect(at(`'2026-11-01 such as 2026-09-01, 2026-09-01 09:00 (UTC)'`)).toEqual(['2026-11-01'])
    expect(at(`'agent.2026@example.com', 'v1.2026-11-01'`)).toEqual([])
    expect(code(`const url = 'https://x.example/2026-11-01' // measured 2026-11-24`)).toBe(
      `const url = 'https://x.example/2026-11-01' `,
    )
  })

  it('are over a year old, or taken from the day the test runs', () => {
    const recent = Date.now() - YEAR_MS
    const found: string[] = []
    for (const path of filesToRead()) {
      const name = relative(ROOT, path)
      if (name in SAFE || name === 'tests/server/date-literals.test.ts') continue
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const { text, at } of datesIn(code(line)))
            if (at > recent) found.push(`${name}:${index + 1}: ${text}`)
        })
    }
    expect(
      found,
      'take these from today (tests/support/relative-dates.ts) or write them in an older year',
    ).toEqual([])
  })

  it('lists only files that still write a date, each with its reason', () => {
    for (const [name, why] of Object.entries(SAFE)) {
      expect(why.length, name).toBeGreaterThan(20)
      const dates = readFileSync(join(ROOT, name), 'utf8')
        .split('\n')
        .flatMap((line) => datesIn(code(line)))
      expect(dates.length, `${name} no longer needs its place in SAFE`).toBeGreaterThan(0)
    }
  })
})
