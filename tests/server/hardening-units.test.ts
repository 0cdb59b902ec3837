import { describe, expect, it } from 'vitest'
import { nestsTooDeep } from '../../server/http/json-depth'
import { rawPath } from '../../server/http/raw-path'
import { checkRows } from '../../server/http/rest/row-rules'

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
    expect(() => checkRows('waitlist', ['email'], [good, good])).not.toThrow()
    expect(() => checkRows('waitlist', ['email'], [good, { email: 'bad' }])).toThrow(
      'new row for relation "waitlist" violates check constraint "waitlist_email_format"',
    )
    expect(() => checkRows('waitlist', ['email'], [good, {}])).toThrow(
      'null value in column "email" of relation "waitlist" violates not-null constraint',
    )
    expect(() => checkRows('waitlist', ['email'], [{ email: `${'a'.repeat(250)}@x.co` }, good])).toThrow(
      /"waitlist_email_length"/,
    )
    // Without the column, or on a table with no known rule, the database decides alone.
    expect(() => checkRows('waitlist', ['created_at'], [{ created_at: 'x' }, {}])).not.toThrow()
    expect(() => checkRows('other', ['email'], [{ email: 'bad' }, good])).not.toThrow()
  })
})
