import { outcomeMessages, type WaitlistOutcome } from '../../contract/waitlist-outcome'
import { showToast } from './toast-store'

/** Shows the toast the specification prescribes for an outcome, and logs failures. */
export function announceOutcome(outcome: WaitlistOutcome) {
  if (outcome.status === 'error') console.error('Waitlist request failed:', outcome.error)
  showToast(outcomeMessages[outcome.status])
}
