import { useCallback, useRef, useState } from 'react'
import { announceOutcome } from './announce-outcome'
import { submitWaitlist } from './submit-waitlist'
import type { WaitlistOutcome } from './waitlist-outcome'

/**
 * The access-request form's state and its one submit path (spec section 4). A person pressing the
 * button and an agent calling the WebMCP tool both go through `submit`, so both see the same
 * 'Submitting...' state, the same disabled controls and the same toasts.
 */
export function useWaitlistController() {
  const [email, setEmail] = useState('')
  const [submitting, setSubmitting] = useState(false)
  // One request at a time: a tool call that arrives mid-request waits, as the disabled button would.
  const inFlight = useRef<Promise<unknown> | undefined>(undefined)

  const submit = useCallback((value: string): Promise<WaitlistOutcome | undefined> => {
    // Spec section 5: a submission with an empty value is ignored.
    if (!value) return Promise.resolve(undefined)
    const run = async () => {
      setEmail(value)
      setSubmitting(true)
      const outcome = await submitWaitlist(value)
      setSubmitting(false)
      if (outcome.status === 'submitted') setEmail('')
      announceOutcome(outcome)
      return outcome
    }
    const previous = inFlight.current
    const next = previous ? previous.then(run) : run()
    const settled: Promise<void> = next.then(
      () => undefined,
      () => undefined,
    )
    void settled.then(() => {
      if (inFlight.current === settled) inFlight.current = undefined
    })
    inFlight.current = settled
    return next
  }, [])

  return { email, setEmail, submitting, submit }
}
