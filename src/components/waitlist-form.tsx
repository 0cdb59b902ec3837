import { type FormEvent, useEffect } from 'react'
import { formWords } from '../../contract/form-words'
import { HONEYPOT_FIELD } from '../../contract/honeypot-field'
import { requestAccessWords, toolResultOf } from '../../contract/request-access-words'
import { announceOutcome } from '../lib/announce-outcome'
import { confirmSignups } from '../lib/confirm-signups'
import { loadSupabase } from '../lib/load-supabase'
import { useWaitlistController } from '../lib/waitlist-controller'
import { offerRequestAccessTool } from '../lib/webmcp-offer'

/** A submit an in-browser agent caused through the form's WebMCP tool (declarative API). */
interface AgentSubmitEvent extends SubmitEvent {
  agentInvoked?: boolean
  respondWith?: (result: Promise<unknown>) => void
}

type Controller = ReturnType<typeof useWaitlistController>

/**
 * The form's submit after hydration: through the controller, or (only a bot fills the hidden trap
 * field) the success a person would see with nothing sent. An agent's submit gets the tool's result.
 */
function submitForm(event: FormEvent<HTMLFormElement>, { email, setEmail, submit }: Controller) {
  event.preventDefault()
  // An agent filling the form through WebMCP sets the input's value without React's onChange.
  const field = event.currentTarget.elements.namedItem('email')
  const value = field instanceof HTMLInputElement ? field.value : email
  const trap = event.currentTarget.elements.namedItem(HONEYPOT_FIELD)
  const native = event.nativeEvent as AgentSubmitEvent
  const byAgent = Boolean(native.agentInvoked && native.respondWith)
  if (value && trap instanceof HTMLInputElement && trap.value !== '') {
    if (field instanceof HTMLInputElement) field.value = ''
    setEmail('')
    announceOutcome({ status: 'submitted' })
    if (byAgent)
      native.respondWith?.(Promise.resolve(toolResultOf({ status: 'submitted' }, confirmSignups())))
    return
  }
  const outcome = submit(value, { keepInputEnabled: byAgent, byAgent })
  if (byAgent) native.respondWith?.(outcome.then((result) => toolResultOf(result, confirmSignups())))
}

function warmUp() {
  loadSupabase().catch(() => {
    // Retried on submit, where a failure is shown.
  })
}

/** The trap field: off-screen, outside the accessibility tree and the tab order. */
function HoneypotField() {
  return (
    <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
      <label htmlFor="waitlist-website">Leave this field empty</label>
      <input
        id="waitlist-website"
        name={HONEYPOT_FIELD}
        type="text"
        tabIndex={-1}
        autoComplete="off"
        toolparamdescription="Not used: always leave empty."
      />
    </div>
  )
}

/**
 * The access-request form: one e-mail field and one button. Before hydration it is a plain POST form the
 * server answers, so an early submit never puts the address in a URL.
 */
export function WaitlistForm() {
  const controller = useWaitlistController()
  const { email, setEmail, submitting, inputDisabled, submit } = controller

  // After hydration, agents in browsers with WebMCP's imperative API get the same action as a tool.
  useEffect(() => offerRequestAccessTool(submit), [submit])

  return (
    <form
      method="post"
      action="/"
      onSubmit={(event) => submitForm(event, controller)}
      toolname={requestAccessWords.name}
      tooldescription={requestAccessWords.description}
      toolautosubmit=""
      className="mt-4 flex max-w-xl flex-col gap-2 rounded-2xl border border-line bg-panel p-2 shadow-lg shadow-ink/5 has-[input:focus-visible]:outline-2 has-[input:focus-visible]:outline-offset-2 has-[input:focus-visible]:outline-accent sm:flex-row"
    >
      <label htmlFor="waitlist-email" className="sr-only">
        {formWords.label}
      </label>
      <input
        id="waitlist-email"
        name="email"
        type="email"
        required
        autoComplete="email"
        placeholder={formWords.placeholder}
        toolparamtitle={requestAccessWords.emailTitle}
        toolparamdescription={requestAccessWords.emailDescription}
        value={email}
        disabled={inputDisabled}
        onChange={(event) => setEmail(event.target.value)}
        onFocus={warmUp}
        onPointerEnter={warmUp}
        className="h-12 w-full min-w-0 rounded-lg bg-transparent px-3 text-base text-ink placeholder:text-soft focus-visible:outline-none disabled:opacity-60 sm:flex-1"
      />
      <HoneypotField />
      <button
        type="submit"
        disabled={submitting}
        onPointerEnter={warmUp}
        className="h-12 shrink-0 rounded-xl bg-button px-6 text-base font-medium text-button-ink hover:bg-accent hover:text-page disabled:opacity-60"
      >
        {submitting ? formWords.submitting : formWords.button}
      </button>
    </form>
  )
}
