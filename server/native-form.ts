import { HONEYPOT_FIELD } from '../src/lib/honeypot-field'
import { type Database, isPgError } from './db/database'
import type { Logger } from './log'
import { insertStatement } from './rest/table-sql'

export type NativeFormResult = 'submitted' | 'already_registered' | 'error'

/**
 * The access-request form submitted before the page's script ran (slow network, script blocked):
 * the same insert, as anon, and a redirect whose query names the outcome for the page to show.
 */
export async function submitNativeForm(db: Database, log: Logger, form: FormData): Promise<NativeFormResult> {
  // A bot filled the trap field: it gets the success a person would, and nothing is stored.
  const trap = form.get(HONEYPOT_FIELD)
  if (typeof trap === 'string' && trap !== '') {
    log.info('no-script form: trap field filled, submission ignored')
    return 'submitted'
  }
  const email = form.get('email')
  if (typeof email !== 'string' || email === '') return 'error'
  try {
    await db.runAsRole({ role: 'anon' }, insertStatement('waitlist', ['email'], [{ email }], undefined))
    return 'submitted'
  } catch (error) {
    if (isPgError(error) && error.code === '23505') return 'already_registered'
    if (!isPgError(error) || !error.code.startsWith('23'))
      log.error('no-script form submission failed:', error)
    return 'error'
  }
}
