import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../harness/test-server'
import { postWaitlist } from '../../harness/waitlist-api'
import { runCli } from '../../harness/waitlist-cli'

/**
 * Issue 43: `export` carries each entry's source, joined_at and answers (a column `answer_<id>` per
 * question), and `import` reads them back: checked by the one validator of answers, kept for new
 * entries, given to listed entries only where they have none. Older exports still import.
 */
const HEADER =
  'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at,joined_at,source,' +
  'answer_role,answer_organisation,answer_use_case,tags,note'
// What export writes after them: the consent record (issue 53), then the name (issue 64).
const CONSENT_HEADER = ',consent_at,consent_door,consent_words,consent_agent,confirmed_from,name'
// The consent record a line of a file without one gets (issue 53): the import's time, its file;
// then no name.
const IMPORTED = String.raw`,\d{4}-\d\d-\d\dT[\d:.]+Z,import,[0-9a-f]{16},,,`
const at = (hour: number) =>
  `2024-11-0${1 + Math.floor(hour / 24)}T${String(hour % 24).padStart(2, '0')}:00:00.000000Z`
// Texts a CSV and COPY must both carry: a comma, quotes, a line break, a tab, a formula, unicode.
const TRICKY_USE = 'Agents that "plan", then act;\nsecond line\twith a tab'
const LIST = [
  `ada@lab.org,${at(1)},waiting,,,,,,hackernews,Research,"CERN, Geneva","${TRICKY_USE.replaceAll('"', '""')}",,`,
  `bo@lab.org,${at(2)},joined,,${at(3)},,,${at(4)},linkedin,Founder or executive,=SUM(A1),,,`,
  `cy@lab.org,${at(5)},waiting,,,,,,,,Zürich Ølab ✓,,,`,
  `di@lab.org,${at(6)},waiting,,,,,,,,,,,`,
]

let source: TestServer
let target: TestServer
let scratch: string

beforeAll(async () => {
  ;[source, target] = await Promise.all([startTestServer(), startTestServer()])
  scratch = await mkdtemp(join(tmpdir(), 'export-answers-'))
})

afterAll(async () => {
  await Promise.all([source?.cleanup(), target?.cleanup()])
  await rm(scratch, { recursive: true, force: true })
})

async function csvFile(name: string, lines: readonly string[]): Promise<string> {
  const file = join(scratch, name)
  await writeFile(file, `${lines.join('\r\n')}\r\n`)
  return file
}

const exported = async (server: TestServer) => {
  const result = await runCli(server.env, 'export')
  expect(result).toMatchObject({ code: 0 })
  return result.stdout
}

describe('export and import with sources and answers', () => {
  it('round-trips: the file imported elsewhere exports the same bytes, answers and sources filter there', async () => {
    const file = await csvFile('list.csv', [HEADER, ...LIST])
    expect(await runCli(source.env, 'import', file)).toMatchObject({ code: 0 })
    expect((await postWaitlist(source, { email: 'api@lab.org' })).status).toBe(201)
    const first = await exported(source)
    expect(first.split('\r\n')[0]).toBe(HEADER + CONSENT_HEADER)
    expect(first).toMatch(
      new RegExp(
        String.raw`\r\nbo@lab\.org,${at(2)},joined,,${at(3)},,,${at(4)},linkedin,Founder or executive,"'=SUM\(A1\)",,,${IMPORTED}\r\n`,
      ),
    )
    expect(first).toMatch(/\r\napi@lab\.org,[^,]+,waiting,,,,,,\(api\),,,,,,[^,]+,api,,,,\r\n$/)

    const moved = join(scratch, 'moved.csv')
    await writeFile(moved, first)
    const imported = await runCli(target.env, 'import', moved)
    expect(imported).toMatchObject({ code: 0 })
    expect(imported.stdout).toContain('5 added; 0 are already on the list')
    expect(await exported(target)).toBe(first)

    const role = await runCli(target.env, 'list', '--answer', 'role=Research', '--source', 'hackernews')
    expect(role.stdout).toMatch(/^\S+ {2}ada@lab\.org {2}waiting\n$/)
    const use = await runCli(target.env, 'list', '--answer', 'use_case=SECOND LINE')
    expect(use.stdout).toContain('ada@lab.org')
    const shown = JSON.parse((await runCli(target.env, 'show', 'ada@lab.org', '--json')).stdout)
    expect(shown.answers).toEqual({ role: 'Research', organisation: 'CERN, Geneva', use_case: TRICKY_USE })
  })

  it('a listed entry keeps its own answers and source, and takes the file’s where it has none', async () => {
    const file = await csvFile('again.csv', [
      'email,source,answer_role,answer_organisation',
      'ADA@lab.org,newsletter,Engineering,Elsewhere',
      'di@lab.org,newsletter,  Other  ,Tessel',
      'new@lab.org,newsletter,Product,',
    ])
    const imported = await runCli(target.env, 'import', file)
    expect(imported).toMatchObject({ code: 0 })
    expect(imported.stdout).toContain(
      "1 added; 2 are already on the list (skipped). 1 listed entry took the file's answers, source, tags or note where they had none (their own are kept).",
    )
    const lines = (await exported(target)).split('\r\n')
    expect(lines.find((line) => line.startsWith('ada@'))).toContain(',hackernews,Research,"CERN, Geneva",')
    expect(lines.find((line) => line.startsWith('di@'))).toMatch(
      new RegExp(`,newsletter,Other,Tessel,,,${IMPORTED}$`),
    )
    expect(lines.find((line) => line.startsWith('new@'))).toMatch(
      new RegExp(`,newsletter,Product,,,,${IMPORTED}$`),
    )
  })

  it('refuses a file with a bad answer or source, naming each line, and adds nothing', async () => {
    const before = await exported(target)
    const file = await csvFile('bad.csv', [
      'email,source,answer_role,answer_organisation',
      'ok.one@lab.org,hn,Research,',
      'bad.role@lab.org,hn,Astronaut,',
      `bad.org@lab.org,hn,,${'x'.repeat(101)}`,
      `bad.source@lab.org,${'s'.repeat(101)},,`,
    ])
    const refused = await runCli(target.env, 'import', file)
    expect(refused).toMatchObject({ code: 1, stdout: '' })
    expect(refused.stderr.split('\n').slice(0, 4)).toEqual([
      `${file}: 3 bad lines; nothing was imported.`,
      '  line 3: answer_role "Astronaut": not one of Research, Engineering, Product, Founder or executive, Other (--map role:Astronaut=CHOICE maps it)',
      `  line 4: answer_organisation "${'x'.repeat(60)}"…: over 100 characters`,
      `  line 5: source "${'s'.repeat(60)}"…: over 100 characters`,
    ])
    expect(await exported(target)).toBe(before)
  })

  it('an export from before sources and answers still imports; its entries have none', async () => {
    const file = await csvFile('older.csv', [
      'email,created_at,status,confirmed_at,invited_at,unsubscribed_at,bounced_at',
      `older@lab.org,${at(7)},invited,,${at(8)},,`,
    ])
    expect(await runCli(target.env, 'import', file)).toMatchObject({ code: 0 })
    const line = (await exported(target)).split('\r\n').find((row) => row.startsWith('older@'))
    expect(line).toMatch(new RegExp(`^older@lab\\.org,${at(7)},invited,,${at(8)},,,,,,,,,${IMPORTED}$`))
  })
})
