import type { AddressPolicy } from '../../waitlist/address-policy/address-policy'
import { MAX_EMAIL_LENGTH, WHATWG_EMAIL } from '../../waitlist/admin/email-rule'
import { PostgrestError } from './postgrest-error'
import type { Row } from './request-body'

/**
 * An array insert is judged whole before anything is written: a row the database would refuse
 * fails the request with the answer that row alone would get (400), in Postgres's words, whatever
 * the other rows are. Postgres checks row by row, so `[listed, bad]` used to answer 409 (a unique
 * violation on the first row) where `[unlisted, bad]` answered 400: a probe of who is on the list.
 * The checks are the waitlist's own (supabase/migrations/20261122000000_waitlist.sql), in the order
 * Postgres runs them; json_populate_recordset reads a number or an object as its JSON text.
 */
export function checkRows(table: string, keys: readonly string[], rows: readonly Row[]): void {
  if (table !== 'waitlist' || !keys.includes('email')) return
  for (const { email } of rows) {
    if (email === null || email === undefined) {
      const message = 'null value in column "email" of relation "waitlist" violates not-null constraint'
      throw new PostgrestError(400, '23502', message)
    }
    const text = typeof email === 'string' ? email : JSON.stringify(email)
    const check = !WHATWG_EMAIL.test(text) ? 'format' : text.length > MAX_EMAIL_LENGTH ? 'length' : undefined
    if (check) {
      const message = `new row for relation "waitlist" violates check constraint "waitlist_email_${check}"`
      throw new PostgrestError(400, '23514', message)
    }
  }
}

// An address the waitlist's policy refuses: 400 with P0001, as a database trigger's `raise
// exception` would answer through PostgREST, never 23505 (the page's "already registered").
const addressRefused = ({ message, details, hint }: { message: string; details: string; hint: string }) =>
  new PostgrestError(400, 'P0001', message, details, hint)

/**
 * The address policy (ADR 060) on an insert with a public key: the whole request is refused if any
 * row's address is (the first in order decides). With the lists alone it is synchronous, so the
 * insert path awaits nothing more (undefined: go on).
 */
export function checkAddresses(
  policy: AddressPolicy | undefined,
  table: string,
  keys: readonly string[],
  rows: readonly Row[],
): Promise<void> | undefined {
  if (!policy || table !== 'waitlist' || !keys.includes('email')) return undefined
  if (!policy.asksDns) {
    for (const row of rows) {
      const refusal = policy.listed(row.email)
      if (refusal) throw addressRefused(refusal)
    }
    return undefined
  }
  return Promise.all(rows.map((row) => policy.refusal(row.email))).then((refusals) => {
    const first = refusals.find((refusal) => refusal !== undefined)
    if (first) throw addressRefused(first)
  })
}
