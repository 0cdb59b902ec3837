import { describe, expect, it } from 'vitest'
import { insertStatement } from '../../server/http/rest/table-sql'
import { INSERT_EMAIL_SQL, insertEmailStatement } from '../../server/waitlist/insert-sql'

describe("the waitlist's own insert", () => {
  it('is the text REST sends for one row of only email, so both share one prepared statement', () => {
    const rest = insertStatement('waitlist', ['email'], [{ email: 'ada@example.com' }], undefined)
    expect(INSERT_EMAIL_SQL).toBe(rest.sql)
    const own = insertEmailStatement('ada@example.com')
    expect(own).toEqual({ sql: rest.sql, params: rest.params, prepare: true })
    expect(rest.prepare).toBe(true)
  })
})
