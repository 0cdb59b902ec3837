import { type FormEvent, useState } from 'react'
import { announceOutcome } from '../lib/announce-outcome'
import { loadSupabase } from '../lib/load-supabase'
import { submitWaitlist } from '../lib/submit-waitlist'

/**
 * The access-request form (spec sections 4 and 5). Before hydration it is a plain POST form the
 * server answers, so an early submit never puts the address in a URL.
 */
export function WaitlistForm() {
  const [email, setEmail] = useState('')
  const [submitting, setSubmitting] = useState(false)

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (!email) return
    setSubmitting(true)
    const outcome = await submitWaitlist(email)
    setSubmitting(false)
    if (outcome.status === 'submitted') setEmail('')
    announceOutcome(outcome)
  }

  function warmUp() {
    loadSupabase().catch(() => {
      // Retried on submit, where a failure is shown.
    })
  }

  return (
    <form method="post" action="/" onSubmit={handleSubmit} className="mt-4 flex max-w-xl flex-col gap-3 sm:flex-row">
      <label htmlFor="waitlist-email" className="sr-only">
        Email address
      </label>
      <input
        id="waitlist-email"
        name="email"
        type="email"
        required
        autoComplete="email"
        placeholder="Enter your email"
        value={email}
        disabled={submitting}
        onChange={(event) => setEmail(event.target.value)}
        onFocus={warmUp}
        onPointerEnter={warmUp}
        className="h-11 flex-1 rounded-md border border-slate-300 bg-white px-3 text-base text-slate-900 placeholder:text-slate-500 focus:border-slate-900 focus:outline-none focus:ring-2 focus:ring-slate-900/20 disabled:opacity-60"
      />
      <button
        type="submit"
        disabled={submitting}
        onPointerEnter={warmUp}
        className="h-11 rounded-md bg-slate-900 px-5 text-base font-medium text-white hover:bg-slate-700 disabled:opacity-60"
      >
        {submitting ? 'Submitting...' : 'Request Access'}
      </button>
    </form>
  )
}
