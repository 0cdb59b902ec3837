import type { AddressPolicy, AddressRefusal } from '../../waitlist/address-policy/address-policy'
import { MAX_EMAIL_LENGTH, WHATWG_EMAIL } from '../../waitlist/admin/email-rule'
import { PostgrestError, unknownColumn } from './postgrest-error'
import type { InsertRows, Row } from './request-body'

/**
 * An insert's rows, refused before anything is written for an unknown column, and on the waitlist
 * for a bad address (checkRows) or one the policy refuses (ADR 060). The columns come back in the
 * table's order, each once: the insert's text depends only on which were sent.
 */
export async function checkedRows(
  { rows, keys }: InsertRows,
  table: string,
  known: ReadonlySet<string>,
  policy: AddressPolicy | undefined,
): Promise<InsertRows> {
  for (const key of keys) if (!known.has(key)) throw unknownColumn(key, table)
  if (table === 'waitlist' && keys.includes('email')) {
    if (rows.length > 1) checkRows(rows)
    const checking = policy && checkAddresses(policy, rows)
    if (checking) await checking
  }
  return { rows, keys: keys.length > 1 ? [...known].filter((column) => keys.includes(column)) : keys }
}

/**
 * An array insert is judged whole: a row the database would refuse fails it with that row's own
 * 400, whatever the others are, so `[listed, bad]` and `[unlisted, bad]` answer alike (ADR 024).
 * The waitlist's own checks, in Postgres's order and words; json_populate_recordset reads a number
 * or an object as its JSON text.
 */
export function checkRows(rows: readonly Row[]): void {
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

// An address the policy refuses: 400 with P0001, as a database trigger's `raise exception` would
// answer through PostgREST, never 23505 (the page's "already registered").
const addressRefused = ({ message, details, hint }: AddressRefusal) =>
  new PostgrestError(400, 'P0001', message, details, hint)

/** Any row's refusal refuses the request (the first decides); with the lists alone, synchronously. */
function checkAddresses(policy: AddressPolicy, rows: readonly Row[]): Promise<void> | undefined {
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
