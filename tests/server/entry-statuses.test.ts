import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ENTRY_STATUSES } from '../../contract/entry-statuses'
import { MAY_RECEIVE } from '../support/who-may-be-mailed'

/**
 * The statuses and their order are written once (contract/entry-statuses.ts): the schema's check
 * and the guide's table follow it, and the guide's column of what mail each may get is the rule the
 * database applies (tests/server/mail-who-may-be-mailed.test.ts holds private.may_mail to the same).
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

describe('the statuses, written once', () => {
  it('the schema checks them, in their order', () => {
    const check = /entry_status_status_check CHECK \(\(status = ANY \(ARRAY\[([^\]]*)\]/.exec(
      read('supabase/schema.sql'),
    )
    const listed = [...(check?.[1] ?? '').matchAll(/'([a-z]+)'::text/g)].map((found) => found[1])
    expect(listed).toEqual([...ENTRY_STATUSES])
  })

  it('docs/invitations.md lists them in their order, with the mail each may get', () => {
    const rows = [...read('docs/invitations.md').matchAll(/^\| `([a-z]+)` +\|[^|]*\|[^|]*\| ([^|]+?) +\|/gm)]
    expect(rows.map((row) => row[1])).toEqual([...ENTRY_STATUSES])
    for (const [, status, mail] of rows) {
      const kinds = mail === 'none' ? [] : (mail ?? '').split(', ')
      expect(kinds.sort(), status).toEqual([...MAY_RECEIVE[status as keyof typeof MAY_RECEIVE]].sort())
    }
  })

  it('one module writes them: no other file of server/ inserts, updates or deletes a private.entry_status row', () => {
    const writes = /(insert\s+into|update|delete\s+from)\s+private\.entry_status\b/i
    const writers = (readdirSync(new URL('../../server', import.meta.url), { recursive: true }) as string[])
      .filter((path) => path.endsWith('.ts'))
      .map((path) => `server/${path.split('\\').join('/')}`)
      .filter((path) => writes.test(read(path)))
    expect(writers).toEqual(['server/waitlist/entry-status.ts'])
  })
})
