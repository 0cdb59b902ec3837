import { describe, expect, it } from 'vitest'
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
