import { type Database, isPgError } from '../db/database'
import { afterRepeatSignup } from '../mail/confirmations'
import { insertEmailStatement } from './insert-sql'

/**
 * What became of one insert: `refused` is the database's own verdict on the address (a check or
 * not-null constraint, SQLSTATE class 23), `failed` anything else (the database did not answer).
 */
export type InsertResult =
  | { status: 'submitted' }
  | { status: 'already_registered' }
  | { status: 'refused'; code: string }
  | { status: 'failed'; error: unknown }

/**
 * The page's insert, run as `anon` like supabase-js's, so the grants, row-level security, the
 * e-mail constraints and the signup trigger decide exactly as they do for the page. A repeat
 * signup may send an unconfirmed address its confirmation again (confirm-again.ts).
 */
export async function insertWaitlistEmail(db: Database, email: string): Promise<InsertResult> {
  try {
    await db.runAsRole({ role: 'anon' }, insertEmailStatement(email))
    return { status: 'submitted' }
  } catch (error) {
    if (isPgError(error) && error.code === '23505') {
      await afterRepeatSignup(db, [email])
      return { status: 'already_registered' }
    }
    if (isPgError(error) && error.code.startsWith('23')) return { status: 'refused', code: error.code }
    return { status: 'failed', error }
  }
}
