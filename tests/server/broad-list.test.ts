import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mailchecker from 'mailchecker'
import { describe, expect, it } from 'vitest'
import { loadMailcheckerList, SortedDomains } from '../../server/waitlist/address-policy/broad-list'

describe('mailchecker read as data (broad-list.ts)', () => {
  it('names exactly the domains of mailchecker’s own Set', () => {
    const set = mailchecker.blacklist()
    const list = loadMailcheckerList()
    expect(list.size).toBe(set.size)
    const wrong: string[] = []
    for (const domain of set) {
      if (!list.has(domain)) wrong.push(domain)
      // Near misses on both sides of each name in the order.
      for (const near of [`${domain}x`, `x${domain}`, domain.slice(1), domain.slice(0, -1)])
        if (list.has(near) !== set.has(near)) wrong.push(near)
    }
    expect(wrong).toEqual([])
    for (const name of ['', 'a', 'gmail.com', 'mailinator.co', '~', '0'])
      expect(list.has(name)).toBe(set.has(name))
  })

  it('searches any sorted list, empty or of one name', () => {
    expect(SortedDomains.of([]).has('a')).toBe(false)
    expect(SortedDomains.of([]).size).toBe(0)
    const one = SortedDomains.of(['b.example'])
    expect([one.has('b.example'), one.has('a'), one.has('c'), one.size]).toEqual([true, false, false, 1])
    const some = SortedDomains.of(['d.io', 'a.io', 'c.io', 'b.io', 'a.io'])
    expect(['a.io', 'b.io', 'c.io', 'd.io', 'e.io', 'a'].map((name) => some.has(name))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ])
    expect(some.size).toBe(4)
  })

  it('refuses to start on a file of another shape rather than block nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'broad-list-'))
    try {
      const cases = {
        'no-list.js': 'module.exports = {}',
        'unsorted.js': 'var blacklist = new Set(["b.com","a.com"]);',
        'escaped.js': 'var blacklist = new Set(["a.com","b\\u002ecom"]);',
      }
      for (const [name, text] of Object.entries(cases)) {
        writeFileSync(join(dir, name), text)
        expect(() => loadMailcheckerList(join(dir, name))).toThrow(/changed its file/)
      }
      writeFileSync(join(dir, 'good.js'), 'var blacklist = new Set(["a.com","b.com"]);')
      const good = loadMailcheckerList(join(dir, 'good.js'))
      expect([good.has('a.com'), good.has('b.com'), good.size]).toEqual([true, true, 2])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
