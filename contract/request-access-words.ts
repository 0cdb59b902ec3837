import { outcomeMessages, type WaitlistOutcome } from './waitlist-outcome.ts'

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

/** What the tool's execute resolves to: the outcome and the words the page shows for it. */
export interface RequestAccessResult {
  status: 'submitted' | 'already_registered' | 'error'
  message: string
}

/** The tool's answer: the outcome and the words the specification shows a person for it. */
export function toolResultOf(outcome: WaitlistOutcome | undefined): RequestAccessResult {
  const status = outcome?.status ?? 'error'
  const { title, description } = outcomeMessages[status]
  return { status, message: `${title} ${description}` }
}
