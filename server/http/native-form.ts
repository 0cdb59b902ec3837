import { HONEYPOT_FIELD } from '../../contract/honeypot-field'
import type { Logger } from '../base/log'
import type { Database } from '../db/database'
import type { AddressPolicy } from '../waitlist/address-policy/address-policy'
import { insertWaitlistEmail } from '../waitlist/insert'

export type NativeFormResult = 'submitted' | 'already_registered' | 'error'

/**
 * The access-request form submitted before the page's script ran (slow network, script blocked):
 * the same insert, as anon, and a redirect whose query names the outcome for the page to show.
 */
export async function submitNativeForm(
  db: Database,
  log: Logger,
  form: FormData,
  /** Called when a new entry was stored (not for the trap field, nor for an address already listed). */
  onStored?: () => void,
  /** Addresses refused before anything is stored (ADR 060): the page then shows its error. */
  policy?: AddressPolicy,
): Promise<NativeFormResult> {
  // A bot filled the trap field: it gets the success a person would, and nothing is stored.
  const trap = form.get(HONEYPOT_FIELD)
  if (typeof trap === 'string' && trap !== '') {
    log.info('no-script form: trap field filled, submission ignored')
    return 'submitted'
  }
  const email = form.get('email')
  if (typeof email !== 'string' || email === '') return 'error'
  const refusal = await policy?.refusal(email)
  if (refusal) {
    log.info(`no-script form: refused an address at ${refusal.domain} (${refusal.reason})`)
    return 'error'
  }
  const result = await insertWaitlistEmail(db, email)
  if (result.status === 'failed') log.error('no-script form submission failed:', result.error)
  if (result.status === 'submitted') onStored?.()
  return result.status === 'submitted' || result.status === 'already_registered' ? result.status : 'error'
}
