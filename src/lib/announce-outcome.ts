import { outcomeMessageFor, type WaitlistOutcome } from '../../contract/waitlist-outcome'
import { confirmSignups } from './confirm-signups'
import { showToast } from './toast-store'

/** Shows the toast the specification prescribes for an outcome, and logs failures. */
export function announceOutcome(outcome: WaitlistOutcome) {
  if (outcome.status === 'error') console.error('Waitlist request failed:', outcome.error)
  showToast(outcomeMessageFor(outcome.status, confirmSignups()))
}
