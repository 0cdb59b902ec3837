import { describe, expect, it } from 'vitest'
import { cleanText, escapeUnprinted, escapeUnprintedJson, plainLine } from '../../contract/clean-text'
import { nestsTooDeep } from '../../server/base/json-depth'
import { rawPath } from '../../server/http/raw-path'
import { checkAddressRule } from '../../server/waitlist/signup'

describe('the JSON depth check', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(nestsTooDeep('{"email":"a@b.co"}', 1)).toBe(false)
    expect(nestsTooDeep('{"a":[{}]}', 2)).toBe(true)
    expect(nestsTooDeep('{"a":"[[[[{{{{"}', 1)).toBe(false)
    expect(nestsTooDeep('{"a":"\\"[[[["}', 1)).toBe(false)
    expect(nestsTooDeep(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false)
    expect(nestsTooDeep(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true)
  })
})

describe('the logged path', () => {
  it('is the path as sent, still encoded, without the query', () => {
    expect(rawPath('http://127.0.0.1:3000/foo%0abar?apikey=secret')).toBe('/foo%0abar')
    expect(rawPath('http://[::1]:3000/')).toBe('/')
    expect(rawPath('http://127.0.0.1:3000')).toBe('/')
  })
})

describe('array rows', () => {
  it('are refused whole for the first row the database would refuse, in its own words', () => {
    const good = { email: 'good@example.com' }
    const check = (rows: Record<string, unknown>[]) => () => checkAddressRule(rows)
    expect(check([good, good])).not.toThrow()
    expect(check([good, { email: 'bad' }])).toThrow(
      'new row for relation "waitlist" violates check constraint "waitlist_email_format"',
    )
    expect(check([good, {}])).toThrow(
      'null value in column "email" of relation "waitlist" violates not-null constraint',
    )
    expect(check([{ email: `${'a'.repeat(250)}@x.co` }, good])).toThrow(/"waitlist_email_length"/)
  })
})

describe('text from strangers (contract/clean-text.ts)', () => {
  it('is stored with line breaks as LF and format characters dropped; a control or half a character is refused', () => {
    expect(cleanText('"x"', 'a\r\nb\rc\td\u200b\u202e\u2066e')).toEqual({ text: 'a\nb\nc\tde' })
    expect(cleanText('"x"', 'a\u0000b')).toEqual({
      problem:
        '"x" holds an invisible control character (U+0000) that cannot be stored; type it again without it',
    })
    for (const [given, code] of [
      ['\u001b[31m', 'U+001B'],
      ['a\u007f', 'U+007F'],
      ['\u009b', 'U+009B'],
    ] as const)
      expect(cleanText('"x"', given)).toEqual({
        problem: expect.stringContaining(`control character (${code})`),
      })
    expect(cleanText('"x"', 'a\udc00')).toEqual({
      problem: expect.stringContaining('half of a character (U+DC00)'),
    })
    // A whole pair is one character, and emoji sequences keep their variation selector.
    expect(cleanText('"x"', '😀 ❤️')).toEqual({ text: '😀 ❤️' })
  })

  it('is printed with what is not text as visible escapes; JSON keeps its data and its line breaks', () => {
    expect(escapeUnprinted('a\u001b[2Jb\u0007\u202ec\n\td\u{e0041}\ud800')).toBe(
      'a\\x1b[2Jb\\x07\\u202ec\\n\\td\\u{e0041}\\ud800',
    )
    expect(escapeUnprinted('a\nb\tc\rd', (char) => char !== '\r')).toBe('a\nb\tc\\rd')
    const data = { a: 'x\u001b\u007f\u0085\u202e\u{e0041}y', b: ['\n\ud800'] }
    const json = escapeUnprintedJson(JSON.stringify(data, null, 2))
    expect(json.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}]/u)
    expect(JSON.parse(json)).toEqual(data)
  })

  it('keeps a relay’s or a provider’s words as one plain line', () => {
    expect(plainLine('550-5.1.1 no\r\n550 5.1.1 \u001b[5mgone\u0007\u202e')).toBe(
      '550-5.1.1 no 550 5.1.1 [5mgone',
    )
  })
})
