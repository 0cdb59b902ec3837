/** What became of one request for beta access, and the words the specification shows for it. */
export type WaitlistOutcome =
  | { status: 'submitted' }
  | { status: 'already_registered' }
  | { status: 'error'; error: unknown }

/** The part of a PostgREST / supabase-js error this product reads. */
export interface InsertError {
  code?: string | null
  message?: string | null
}

const DUPLICATE_MESSAGE = 'duplicate key value violates unique constraint'

/** Maps the insert's error (or its absence) to an outcome: a unique violation (23505) means already registered. */
export function outcomeOfInsert(error: InsertError | null | undefined): WaitlistOutcome {
  if (!error) return { status: 'submitted' }
  if (error.code === '23505' || (error.message ?? '').includes(DUPLICATE_MESSAGE)) {
    return { status: 'already_registered' }
  }
  return { status: 'error', error }
}

export interface OutcomeMessage {
  title: string
  description: string
  variant: 'default' | 'destructive'
}

export const outcomeMessages: Record<WaitlistOutcome['status'], OutcomeMessage> = {
  submitted: {
    title: 'Request submitted!',
    description: "We'll be in touch soon about beta access.",
    variant: 'default',
  },
  already_registered: {
    title: 'Already on the waitlist!',
    description: 'This email is already registered for beta access.',
    variant: 'destructive',
  },
  error: {
    title: 'Error',
    description: 'There was an issue submitting your request. Please try again.',
    variant: 'destructive',
  },
}

/** The page's meta tag that says whether signups are confirmed by mail (`on`), filled in by the server. */
export const CONFIRM_SIGNUPS_META = 'waitlist-confirm'

/** The success with confirmation on (CONFIRM_SIGNUPS): the new entry waits for its link to be followed. */
export const confirmSubmittedMessage: OutcomeMessage = {
  title: 'Request submitted!',
  description: 'Check your inbox to confirm your address.',
  variant: 'default',
}

/**
 * The words for an outcome, given whether signups are confirmed by mail: the specification's, word
 * for word, except the success with confirmation on. The toast and the no-script answer page use it.
 */
export function outcomeMessageFor(
  status: WaitlistOutcome['status'],
  confirmSignups: boolean,
): OutcomeMessage {
  return status === 'submitted' && confirmSignups ? confirmSubmittedMessage : outcomeMessages[status]
}
