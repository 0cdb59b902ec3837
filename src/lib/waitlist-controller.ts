import { useCallback, useRef, useState } from 'react'
import type { WaitlistOutcome } from '../../contract/waitlist-outcome'
import { announceOutcome } from './announce-outcome'
import { submitWaitlist } from './submit-waitlist'

interface SubmitOptions {
  keepInputEnabled?: boolean
  send?: (email: string) => Promise<WaitlistOutcome>
  /** An agent's call through the WebMCP tool: the insert says so, for the consent record. */
  byAgent?: boolean
}

/**
 * The access-request form's state and its one submit path. A person pressing the
 * button and an agent calling the WebMCP tool both go through `submit`, so both see the same
 * 'Submitting...' state, the same disabled controls and the same toasts.
 */
export function useWaitlistController() {
  const [email, setEmail] = useState('')
  const [submitting, setSubmitting] = useState(false)
  const [inputDisabled, setInputDisabled] = useState(false)
  // One request at a time: a tool call that arrives mid-request waits, as the disabled button would.
  const inFlight = useRef<Promise<unknown> | undefined>(undefined)

  /**
   * `keepInputEnabled`: for a call through the form's declarative WebMCP tool only. Chrome cancels
   * such a call ("tool definition was updated") when a field of the form is disabled while it runs,
   * so there the button alone is disabled and reads 'Submitting...'.
   * `send`: for a WebMCP call with answers, which go to the site's MCP tool instead of the insert.
   * `byAgent`: for any WebMCP call, whose insert names its door (submit-waitlist.ts).
   */
  const submit = useCallback((value: string, options?: SubmitOptions) => {
    // A submission with an empty value is ignored: no request, no toast, as the product requires.
    if (!value) return Promise.resolve<WaitlistOutcome | undefined>(undefined)
    const run = async (): Promise<WaitlistOutcome | undefined> => {
      setEmail(value)
      setSubmitting(true)
      setInputDisabled(!options?.keepInputEnabled)
      const outcome = await (options?.send ?? submitWaitlist)(value, options?.byAgent)
      setSubmitting(false)
      setInputDisabled(false)
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

  return { email, setEmail, submitting, inputDisabled, submit }
}
