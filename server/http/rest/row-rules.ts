import { MAX_EMAIL_LENGTH, WHATWG_EMAIL } from '../../waitlist/admin/email-rule'
import { checkViolation, notNullViolation, type PostgrestError } from './postgrest-error'
import type { Row } from './request-body'

interface RowRule {
  column: string
  /** The database's refusal of this value, or undefined when it would accept it. */
  refusal(value: unknown): PostgrestError | undefined
}

/**
 * The waitlist's own constraints (supabase/migrations/20261122000000_waitlist.sql), in the order
 * Postgres checks them: not-null, then the checks by name. `waitlist_email_trimmed` never decides:
 * the format already refuses every space. json_populate_recordset reads a number, a boolean or an
 * object as its JSON text, which the format refuses too.
 */
const waitlistEmail: RowRule = {
  column: 'email',
  refusal(value) {
    if (value === null || value === undefined) return notNullViolation('email', 'waitlist')
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (!WHATWG_EMAIL.test(text)) return checkViolation('waitlist', 'waitlist_email_format')
    if (text.length > MAX_EMAIL_LENGTH) return checkViolation('waitlist', 'waitlist_email_length')
    return undefined
  },
}

const RULES: Readonly<Record<string, RowRule>> = { waitlist: waitlistEmail }

/**
 * An array insert is judged whole before anything is written: a row the database would refuse
 * fails the request with the answer that row alone would get (400), whatever the other rows are.
 * Postgres checks row by row, so `[listed, bad]` used to answer 409 (a unique violation on the first
 * row) where `[unlisted, bad]` answered 400: a probe of who is on the list that wrote nothing and
 * left no trace. A duplicate is still the database's to find; it is a 409 only among valid rows.
 */
export function checkRows(table: string, keys: readonly string[], rows: readonly Row[]): void {
  const rule = RULES[table]
  if (!rule || !keys.includes(rule.column)) return
  for (const row of rows) {
    const refusal = rule.refusal(row[rule.column])
    if (refusal) throw refusal
  }
}
