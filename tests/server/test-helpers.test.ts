import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * Issue 62, item 6: a helper that a fourth test file would copy belongs in tests/support/ (or
 * harness/), or is a fixture of tests/support/fixtures.ts. This reads every test file's top-level
 * helpers (`function name`, `const name = (…) =>`) and fails on a name defined in more than three.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MOST_FILES = 3
const HELPER = /^(?:export )?(?:async )?function (\w+)|^(?:export )?const (\w+) = (?:async )?(?:\(|\w+ =>)/gm

async function testFiles(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await testFiles(path)))
    else if (/\.(test|spec)\.tsx?$/.test(entry.name)) found.push(path)
  }
  return found
}

describe('test helpers', () => {
  it(`no helper is defined at the top of more than ${MOST_FILES} test files`, async () => {
    const filesOf = new Map<string, string[]>()
    for (const file of await testFiles(join(ROOT, 'tests'))) {
      const names = new Set([...(await readFile(file, 'utf8')).matchAll(HELPER)].map((m) => m[1] ?? m[2]))
      for (const name of names) {
        if (name) filesOf.set(name, [...(filesOf.get(name) ?? []), relative(ROOT, file)])
      }
    }
    const copied = [...filesOf].filter(([, files]) => files.length > MOST_FILES)
    expect(filesOf.size, 'the test files were read').toBeGreaterThan(100)
    expect(Object.fromEntries(copied)).toEqual({})
  })
})
