import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The decisions as a history (docs/decisions/README.md): each record keeps the Date it was first
 * accepted and a Status, the index lists each once, every link into the folder leads to a file, and
 * code cites only records that exist and hold. Pure file reads, so it runs in a blink.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const DECISIONS = join(ROOT, 'docs/decisions')

/** The folders whose comments cite records; dated bench runs and applied migrations are history. */
const CODE_DIRS = ['server', 'owner', 'src', 'contract', 'build', 'harness', 'scripts', 'bench', 'tests']
const HISTORY = ['bench/results']
const CODE_FILE = /\.(ts|tsx|js|mjs|cjs|css|html|sh|sql)$/

type Decision = { number: string; file: string; date: string; status: string }

function records(): Decision[] {
  return readdirSync(DECISIONS)
    .filter((file) => /^\d{3}-.+\.md$/.test(file) && !file.startsWith('000-'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(DECISIONS, file), 'utf8')
      return {
        number: file.slice(0, 3),
        file,
        date: /^Date: (.*)$/m.exec(text)?.[1] ?? '',
        status: /^Status: (.*)$/m.exec(text)?.[1] ?? '',
      }
    })
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((path) => join(dir, path))
    .filter((path) => !/node_modules/.test(path) && CODE_FILE.test(path))
}

/** Every record a file cites: `ADR 049`, `ADRs 043, 076`, `ADR 099, 106`, `docs/decisions/055`. */
function citedIn(text: string): string[] {
  const cited: string[] = []
  for (const [, list = ''] of text.matchAll(/\bADRs? (\d{3}(?:(?:,? and |, | & )\d{3})*)\b/g)) {
    cited.push(...(list.match(/\d{3}/g) ?? []))
  }
  for (const [, number = ''] of text.matchAll(/decisions\/(\d{3})\b/g)) cited.push(number)
  return cited
}

/** The guides: docs/*.md, beside the records. */
function guides(): string[] {
  return readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(ROOT, 'docs', file))
}

/** The relative link targets of a Markdown file, without their anchors. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target = '']) => target.replace(/#.*$/, ''))
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target))
}

describe('the decisions', () => {
  const all = records()

  it('each record opens with a real Date and a Status', () => {
    expect(all.length).toBeGreaterThan(100)
    for (const { file, date, status } of all) {
      expect(date, file).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      expect(Number.isNaN(Date.parse(`${date}T00:00:00Z`)), file).toBe(false)
      expect(status, file).toMatch(/^(Accepted|Superseded by \d{3})/)
    }
  })

  it('is dated the day it was first accepted: never after a record numbered later', () => {
    // Numbers are taken in order, so a later Date than a successor's is a Date rewritten later.
    const late = all.filter((record, i) => all.slice(i + 1).some((next) => next.date < record.date))
    expect(late.map(({ file, date }) => `${file} ${date}`)).toEqual([])
  })

  it('the index lists each record once, by its file, under an area', () => {
    const index = readFileSync(join(DECISIONS, 'README.md'), 'utf8')
    const listed = [...index.matchAll(/^- \[(\d{3})\. [^\n]*?\]\((\d{3}-[^)]+\.md)\)/gm)]
    const entries = listed.map(([, number, file]) => `${number} ${file}`).sort()
    expect(entries).toEqual(all.map(({ number, file }) => `${number} ${file}`))
    expect(index).toMatch(/^## /m)
    expect(index).toMatch(/not rewritten after it is accepted/)
  })

  it('every relative link in the guides and the records leads to a file', () => {
    const recordFiles = readdirSync(DECISIONS)
      .filter((file) => file.endsWith('.md'))
      .map((file) => join(DECISIONS, file))
    const broken: string[] = []
    for (const path of [join(ROOT, 'README.md'), ...guides(), ...recordFiles]) {
      const intoDecisions = path.startsWith(DECISIONS)
      for (const target of relativeLinks(readFileSync(path, 'utf8'))) {
        if (!intoDecisions && !target.includes('decisions/')) continue
        if (!existsSync(resolve(dirname(path), target))) broken.push(`${relative(ROOT, path)} → ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('code and the guides cite only records that exist and are not superseded', () => {
    const byNumber = new Map(all.map((record) => [record.number, record]))
    const wrong: string[] = []
    const code = CODE_DIRS.flatMap((dir) => filesUnder(join(ROOT, dir))).filter(
      (path) => !HISTORY.some((dir) => relative(ROOT, path).startsWith(dir)),
    )
    for (const path of [...code, ...guides()]) {
      for (const number of citedIn(readFileSync(path, 'utf8'))) {
        const record = byNumber.get(number)
        if (!record) wrong.push(`${relative(ROOT, path)}: ${number} (no such record)`)
        else if (record.status.startsWith('Superseded'))
          wrong.push(`${relative(ROOT, path)}: ${number} (${record.status})`)
      }
    }
    expect(wrong).toEqual([])
  })
})
