import {
  CONFIRM_SIGNUPS_META,
  outcomeMessageFor,
  type WaitlistOutcome,
} from '../../contract/waitlist-outcome'
import { showToast } from './toast-store'

/** Whether the server confirms signups by mail: it says so in the page it serves (static-site.ts). */
const confirmSignups = () =>
  document.querySelector<HTMLMetaElement>(`meta[name="${CONFIRM_SIGNUPS_META}"]`)?.content === 'on'

/** Shows the toast the specification prescribes for an outcome, and logs failures. */
export function announceOutcome(outcome: WaitlistOutcome) {
  if (outcome.status === 'error') console.error('Waitlist request failed:', outcome.error)
  showToast(outcomeMessageFor(outcome.status, confirmSignups()))
}
