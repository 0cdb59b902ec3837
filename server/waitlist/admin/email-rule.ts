/**
 * The database's own rule for an address (supabase/migrations/20261122000000_waitlist.sql:
 * waitlist_email_format, _length and _trimmed), so `import` can name every bad line before it
 * writes anything. tests/server/waitlist-import.test.ts checks it against the database itself.
 */
export const WHATWG_EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/

export const MAX_EMAIL_LENGTH = 254

/** Why the database would refuse this address, or undefined when it accepts it. */
export function emailProblem(email: string): string | undefined {
  if (email === '') return 'the address is empty'
  if (email.trim() !== email) return 'the address has spaces around it'
  if (email.length > MAX_EMAIL_LENGTH) return `the address is longer than ${MAX_EMAIL_LENGTH} characters`
  if (!WHATWG_EMAIL.test(email)) return 'not a valid e-mail address'
  return undefined
}
