import { outcomeMessageFor, type WaitlistOutcome } from './waitlist-outcome.ts'

/**
 * The request-access tool as the page's form declares it (WebMCP's declarative attributes): its
 * name and words, and its answer in the page's words. A module of its own so the form carries
 * nothing else of the tool (agent-tool.ts adds the input schema, with the lab's questions).
 */
export const requestAccessWords = {
  name: 'request_beta_access',
  /** What a browser or client shows a person for the tool. */
  title: 'Request beta access',
  description:
    "Request access to the lab's private beta by joining the waitlist with an e-mail address. " +
    "Returns status 'submitted', 'already_registered' (the address is already on the waitlist) or 'error'.",
  emailDescription: 'The e-mail address to add to the private beta waitlist.',
  /** The e-mail field's label on the page, and its WebMCP `toolparamtitle`. */
  emailTitle: 'Email address',
} as const

/**
 * What the person does after a success: follow the link in the confirmation e-mail just sent (with
 * CONFIRM_SIGNUPS on; unconfirmed requests lapse), or nothing until the lab's invitation.
 */
export type NextStep = 'confirm_email' | 'wait_for_invitation'

/** What the tool's execute resolves to: the outcome, the words the page shows for it, and what comes next. */
export interface RequestAccessResult {
  status: 'submitted' | 'already_registered' | 'error'
  message: string
  /** After a success only: the person's next step, which an agent should pass on. */
  next_step?: NextStep
}

/**
 * The tool's answer: the outcome and the words the page shows a person for it (with confirmation
 * on, the page's "Check your inbox to confirm your address."), so an agent tells its person what
 * the page would, and after a success the next step as a field.
 */
export function toolResultOf(
  outcome: WaitlistOutcome | undefined,
  confirmSignups = false,
): RequestAccessResult {
  const status = outcome?.status ?? 'error'
  const { title, description } = outcomeMessageFor(status, confirmSignups)
  const message = `${title} ${description}`
  if (status !== 'submitted') return { status, message }
  return { status, message, next_step: confirmSignups ? 'confirm_email' : 'wait_for_invitation' }
}
