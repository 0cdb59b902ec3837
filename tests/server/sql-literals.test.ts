import { describe, expect, it } from 'vitest'
import { isPgError } from '../../server/db/database'
import { inlineParams, sqlLiteral } from '../../server/db/sql-literals'

describe('sqlLiteral', () => {
  it('quotes every value as text of unknown type, as the extended protocol sends it', () => {
    expect(sqlLiteral('abc')).toBe("'abc'")
    expect(sqlLiteral(42)).toBe("'42'")
    expect(sqlLiteral(true)).toBe("'true'")
    expect(sqlLiteral(null)).toBe('null')
    expect(sqlLiteral(undefined)).toBe('null')
  })

  it("doubles quotes, and doubles backslashes under E''", () => {
    expect(sqlLiteral("o'brien")).toBe("'o''brien'")
    expect(sqlLiteral("'); drop table waitlist; --")).toBe("'''); drop table waitlist; --'")
    expect(sqlLiteral('a\\b')).toBe(" E'a\\\\b'")
  })

  it("writes arrays in Postgres's array syntax, each element quoted", () => {
    expect(sqlLiteral(['a', 'b c'])).toBe(`'{"a","b c"}'`)
    expect(sqlLiteral(['say "hi"', 'back\\slash', null])).toBe(
      ` E'{"say \\\\"hi\\\\"","back\\\\\\\\slash",NULL}'`,
    )
  })

  it('refuses NUL as Postgres does (22021), and values it cannot write', () => {
    const error = (() => {
      try {
        sqlLiteral('a\u0000b')
      } catch (caught) {
        return caught
      }
    })()
    expect(isPgError(error) && error.code).toBe('22021')
    expect(() => sqlLiteral({ a: 1 })).toThrow(TypeError)
    expect(() => sqlLiteral(Number.NaN)).toThrow(TypeError)
  })
})

describe('inlineParams', () => {
  it('replaces $n outside quotes, leaves quoted text alone, and never rescans what it inserted', () => {
    expect(inlineParams('select $1, $2', ['a', 'b'])).toBe("select 'a', 'b'")
    expect(inlineParams(`select '$1', "col$1", $1`, ['x'])).toBe(`select '$1', "col$1", 'x'`)
    expect(inlineParams(`select 'it''s $1', $1`, ['x'])).toBe(`select 'it''s $1', 'x'`)
    expect(inlineParams('select $1, $2', ['$2', 'b'])).toBe("select '$2', 'b'")
    expect(
      inlineParams(
        'select $10',
        Array.from({ length: 10 }, (_, i) => `v${i + 1}`),
      ),
    ).toBe("select 'v10'")
  })

  it('refuses a placeholder with no parameter', () => {
    expect(() => inlineParams('select $2', ['a'])).toThrow(RangeError)
    expect(() => inlineParams('select $0', ['a'])).toThrow(RangeError)
  })
})
