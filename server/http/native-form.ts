import { HONEYPOT_FIELD } from '../../contract/honeypot-field'
import type { Logger } from '../base/log'
import { type SignupDeps, type SignupOrigin, signUpOne } from '../waitlist/signup'

export type NativeFormResult = 'submitted' | 'already_registered' | 'error'

/**
 * The access-request form submitted before the page's script ran (slow network, script blocked):
 * a door to the one signup (server/waitlist/signup.ts), answered by a redirect whose query names
 * the outcome for the page to show.
 */
export async function submitNativeForm(
  signup: SignupDeps,
  log: Logger,
  form: FormData,
  origin: SignupOrigin = {},
): Promise<NativeFormResult> {
  // A bot filled the trap field: it gets the success a person would, and nothing is stored.
  const trap = form.get(HONEYPOT_FIELD)
  if (typeof trap === 'string' && trap !== '') {
    log.info('no-script form: trap field filled, submission ignored')
    return 'submitted'
  }
  const email = form.get('email')
  if (typeof email !== 'string' || email === '') return 'error'
  const outcome = await signUpOne(signup, email, origin)
  switch (outcome.status) {
    case 'submitted':
    case 'already_registered':
      return outcome.status
    case 'refused':
      if (outcome.policy)
        log.info(`no-script form: refused an address at ${outcome.policy.domain} (${outcome.policy.reason})`)
      return 'error'
    case 'failed':
      log.error('no-script form submission failed:', outcome.error)
      return 'error'
  }
}
