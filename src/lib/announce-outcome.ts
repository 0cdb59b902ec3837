import { showToast } from './toast-store'
import { outcomeMessages, type WaitlistOutcome } from './waitlist-outcome'

/** Shows the toast the specification prescribes for an outcome, and logs failures. */
export function announceOutcome(outcome: WaitlistOutcome) {
  if (outcome.status === 'error') console.error('Waitlist request failed:', outcome.error)
  showToast(outcomeMessages[outcome.status])
}
